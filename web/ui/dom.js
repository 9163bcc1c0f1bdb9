// DOM helpers. Everything the user or a model wrote reaches the page as
// text nodes: h() appends strings with createTextNode, never as markup.

let reporter = () => {};

// setReporter sets the function that shows an error nobody else handled.
export function setReporter(fn) {
  reporter = fn;
}

// guard wraps an event handler so a thrown error or a rejected promise is
// shown to the user instead of escaping as an uncaught error.
export function guard(fn) {
  return (...args) => {
    try {
      const r = fn(...args);
      if (r && typeof r.then === 'function') r.catch((err) => reporter(err));
      return r;
    } catch (err) {
      reporter(err);
      return undefined;
    }
  };
}

// h builds an element: props are attributes (class, data-*, aria-*…),
// "text" sets textContent, on<event> adds a guarded listener; children are
// nodes or strings (appended as text).
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = String(v);
      else if (k === 'value') el.value = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), guard(v));
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

// append adds children (nodes, strings, arrays of them) to el.
export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
const ICONS = {
  plus: 'M12 5v14M5 12h14',
  pencil: 'M4 20h4L19.5 8.5a2.1 2.1 0 0 0-3-3L5 17v3zM14.5 7.5l2 2',
  trash: 'M4 7h16M10 11v6M14 11v6M9 7V4h6v3M6 7l1 13h10l1-13',
  download: 'M12 3v12m0 0l-5-5m5 5l5-5M5 21h14',
  x: 'M6 6l12 12M18 6L6 18',
  menu: 'M4 6h16M4 12h16M4 18h16',
  search: 'M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13zM15.5 15.5L20 20',
  send: 'M12 19V5M5.5 11.5L12 5l6.5 6.5',
  stop: 'M7 7h10v10H7z',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  thumb: 'M7 10v10H4V10h3zM7 10l4-7c1.4 0 2.5 1.1 2.5 2.5V9h5a2 2 0 0 1 2 2.3l-1.2 7A2 2 0 0 1 17.3 20H7',
  layers: 'M12 3l9 5-9 5-9-5 9-5zM3 13l9 5 9-5M3 17l9 5 9-5',
  anchor: 'M12 8a2.5 2.5 0 1 0 0-5a2.5 2.5 0 1 0 0 5zM12 8v13M5 13a7 7 0 0 0 14 0M8.5 11h7',
  refresh: 'M20 12a8 8 0 1 1-2.3-5.6M20 4v5h-5',
  book: 'M5 4.5A1.5 1.5 0 0 1 6.5 3H19v15H6.5A1.5 1.5 0 0 0 5 19.5v-15zM5 19.5A1.5 1.5 0 0 0 6.5 21H19v-3',
  chat: 'M4 5h16v11H9l-5 4V5z',
  why: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6V14M12 17.5v.5',
  chevron: 'M9 6l6 6-6 6',
  play: 'M7 5l12 7-12 7V5z',
};

// icon returns a decorative SVG icon (hidden from screen readers).
export function icon(name, cls = '') {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', ('icon ' + cls).trim());
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name] || ICONS.x);
  svg.append(path);
  return svg;
}

// Formatting in the interface's language.
let locale = 'en';
export function setLocale(l) {
  locale = l;
}
export function fmtNum(n) {
  return new Intl.NumberFormat(locale).format(Number(n) || 0);
}
export function fmtMs(n) {
  const v = Number(n) || 0;
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'millisecond', unitDisplay: 'short', maximumFractionDigits: v < 10 ? 2 : v < 100 ? 1 : 0 }).format(v);
}
function parseDate(iso) {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}
export function fmtDateTime(iso) {
  const d = parseDate(iso);
  return d ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d) : '';
}
export function fmtTime(iso) {
  const d = parseDate(iso);
  if (!d) return '';
  const sameDay = d.toDateString() === new Date().toDateString();
  return new Intl.DateTimeFormat(locale, sameDay ? { timeStyle: 'short' } : { dateStyle: 'short', timeStyle: 'short' }).format(d);
}
// fmtClock is the time of day alone.
export function fmtClock(iso) {
  const d = parseDate(iso);
  return d ? new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(d) : '';
}

// dayOf is the local day of iso: its key, the date, and how many days
// before now's it is (0 for today, and for a moment ahead of the clock);
// null when iso is not a date.
export function dayOf(iso, now = new Date()) {
  const d = parseDate(iso);
  if (!d) return null;
  const midnight = (x) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  // Days of 23 or 25 hours (daylight saving) round to whole days.
  const ago = Math.max(0, Math.round((midnight(now) - midnight(d)) / 86400000));
  return { key: d.toDateString(), date: d, ago, thisYear: d.getFullYear() === now.getFullYear() };
}

// fmtDay names a day (a dayOf value) in a list: today and yesterday in
// words, a weekday within the last week, then the date (with its year
// when it is another year's).
export function fmtDay(day, today, yesterday) {
  if (day.ago === 0) return today;
  if (day.ago === 1) return yesterday;
  const opts = day.ago < 7 ? { weekday: 'long' } : day.thisYear ? { day: 'numeric', month: 'long' } : { day: 'numeric', month: 'long', year: 'numeric' };
  const s = new Intl.DateTimeFormat(locale, opts).format(day.date);
  return s.charAt(0).toLocaleUpperCase(locale) + s.slice(1);
}

// snippet shortens text to n characters on one line.
export function snippet(text, n = 120) {
  const s = String(text ?? '').replace(/\s+/g, ' ').trim();
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

// toast shows a short message in the corner; errors stay until closed or
// for 8 seconds.
export function toast(message, kind = 'info', closeLabel = 'Close') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const el = h('div', { class: 'toast toast-' + kind, 'data-testid': 'toast', role: kind === 'error' ? 'alert' : 'status' },
    h('span', { class: 'toast-text' }, message),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': closeLabel, onclick: () => el.remove() }, icon('x')));
  box.append(el);
  setTimeout(() => el.remove(), kind === 'error' ? 8000 : 4000);
}

// confirmDialog asks a yes/no question in the page's own dialog (never a
// browser dialog) and resolves to the answer.
export function confirmDialog(message, okLabel, cancelLabel, danger = true) {
  const dlg = document.getElementById('confirm-dialog');
  const text = dlg.querySelector('[data-role=text]');
  const ok = dlg.querySelector('[data-role=ok]');
  const cancel = dlg.querySelector('[data-role=cancel]');
  text.textContent = message;
  ok.textContent = okLabel;
  cancel.textContent = cancelLabel;
  ok.classList.toggle('danger', danger);
  return new Promise((resolve) => {
    const done = (v) => {
      ok.removeEventListener('click', onOk);
      cancel.removeEventListener('click', onCancel);
      dlg.removeEventListener('close', onClose);
      if (dlg.open) dlg.close();
      resolve(v);
    };
    const onOk = () => done(true);
    const onCancel = () => done(false);
    const onClose = () => done(false);
    ok.addEventListener('click', onOk);
    cancel.addEventListener('click', onCancel);
    dlg.addEventListener('close', onClose);
    dlg.showModal();
    cancel.focus();
  });
}
