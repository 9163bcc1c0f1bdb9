// Interface strings in English and Russian. The language comes from
// localStorage, else from the browser; the sidebar switches it.
import { en } from './lang_en.js';
import { ru } from './lang_ru.js';

const dicts = { en, ru };
const KEY = 'yakor.lang';

function initial() {
  try {
    const saved = window.localStorage.getItem(KEY);
    if (saved && dicts[saved]) return saved;
  } catch {
    // no storage: use the browser's language
  }
  const nav = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  return nav.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

let lang = initial();

export function getLang() {
  return lang;
}

// setLang switches the language and remembers it.
export function setLang(l) {
  if (!dicts[l]) return;
  lang = l;
  document.documentElement.lang = l;
  try {
    window.localStorage.setItem(KEY, l);
  } catch {
    // not remembered: private mode
  }
}

function fill(s, vars) {
  return vars ? s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? String(vars[k]) : m)) : s;
}

// t returns the string for key in the current language; an unknown value of
// a dynamic key (status.x) shows as itself.
export function t(key, vars) {
  const s = dicts[lang][key] ?? en[key];
  if (s === undefined) return fill(key.slice(key.indexOf('.') + 1), vars);
  return fill(s, vars);
}

// tn returns the plural form of key for n.
export function tn(key, n) {
  const form = new Intl.PluralRules(lang).select(n);
  const s = dicts[lang][key + '.' + form] ?? dicts[lang][key + '.other'] ?? en[key + '.' + (n === 1 ? 'one' : 'other')];
  return fill(s, { n: new Intl.NumberFormat(lang).format(n) });
}

// translateStatic sets the texts of index.html's marked elements.
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.setAttribute('title', t(el.dataset.i18nTitle));
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) el.setAttribute('placeholder', t(el.dataset.i18nPlaceholder));
}

export const languages = Object.keys(dicts);
