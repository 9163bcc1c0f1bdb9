// A small, safe Markdown renderer: paragraphs, headings, lists, quotes,
// fenced code, rules, GFM tables, emphasis, code spans and links. It builds
// DOM nodes with createElement and text nodes only: raw HTML in a message
// stays text, and a link is made only for an http, https or mailto URL.
import { h, guard, icon } from './dom.js';
import { t } from './i18n.js';

// safeHref returns url as an absolute URL when its scheme is one of
// schemes, else null.
export function safeHref(url, schemes = ['http:', 'https:', 'mailto:']) {
  if (typeof url !== 'string') return null;
  const u = url.trim();
  if (!u || /[\s\u0000-\u001f\u007f]/.test(u)) return null;
  let parsed;
  try {
    parsed = new URL(u);
  } catch {
    return null;
  }
  if (!schemes.includes(parsed.protocol.toLowerCase())) return null;
  return parsed.href;
}

// renderMarkdown returns a fragment of the rendered text.
export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  blocks(String(src ?? '').replace(/\r\n?/g, '\n').split('\n'), frag);
  return frag;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>/;

function listItem(line) {
  let m = /^(\s*)([-*+])\s+(.*)$/.exec(line);
  if (m) return { indent: m[1].length, ordered: false, text: m[3] };
  m = /^(\s*)(\d{1,9})[.)]\s+(.*)$/.exec(line);
  if (m) return { indent: m[1].length, ordered: true, start: Number(m[2]), text: m[3] };
  return null;
}

function blank(line) {
  return /^\s*$/.test(line);
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || listItem(line) !== null;
}

function blocks(lines, parent) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i++;
      continue;
    }
    let m = FENCE.exec(line);
    if (m) {
      const mark = m[1];
      const close = new RegExp('^ {0,3}' + (mark[0] === '`' ? '`' : '~') + '{' + mark.length + ',}\\s*$');
      const body = [];
      i++;
      while (i < lines.length && !close.test(lines[i])) body.push(lines[i++]);
      i++;
      parent.append(codeBlock(body.join('\n'), m[2]));
      continue;
    }
    m = HEADING.exec(line);
    if (m) {
      const el = document.createElement('h' + Math.min(m[1].length + 2, 6));
      inline(m[2], el);
      parent.append(el);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      parent.append(document.createElement('hr'));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && QUOTE.test(lines[i])) inner.push(lines[i++].replace(/^ {0,3}> ?/, ''));
      const bq = document.createElement('blockquote');
      blocks(inner, bq);
      parent.append(bq);
      continue;
    }
    if (listItem(line)) {
      i = list(lines, i, parent);
      continue;
    }
    if (tableStart(lines, i)) {
      i = table(lines, i, parent);
      continue;
    }
    const p = document.createElement('p');
    let first = true;
    while (i < lines.length && !blank(lines[i]) && (first || (!startsBlock(lines[i]) && !tableStart(lines, i)))) {
      if (!first) p.append(document.createElement('br'));
      inline(lines[i].trim(), p);
      first = false;
      i++;
    }
    parent.append(p);
  }
}

function list(lines, i, parent) {
  const first = listItem(lines[i]);
  const el = document.createElement(first.ordered ? 'ol' : 'ul');
  if (first.ordered && first.start !== 1) el.setAttribute('start', String(first.start));
  let cur = null;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      const next = i + 1 < lines.length ? listItem(lines[i + 1]) : null;
      if (next && next.indent >= first.indent - 1 && (next.indent > first.indent + 1 || next.ordered === first.ordered)) {
        i++;
        continue;
      }
      break;
    }
    const it = listItem(line);
    if (it && it.indent > first.indent + 1 && cur) {
      i = list(lines, i, cur);
      continue;
    }
    if (it && it.indent >= first.indent - 1 && it.ordered === first.ordered) {
      cur = document.createElement('li');
      inline(it.text, cur);
      el.append(cur);
      i++;
      continue;
    }
    if (!it && cur && /^\s+\S/.test(line) && !startsBlock(line)) {
      cur.append(document.createElement('br'));
      inline(line.trim(), cur);
      i++;
      continue;
    }
    break;
  }
  parent.append(el);
  return i;
}

// A GFM table: a header row, a delimiter row of as many cells (---, :--,
// --:, :-:, at least one pipe in each of the two), then body rows up to a
// blank line or another block. A row's cells are split at its pipes, in
// code too; a pipe escaped with a backslash is a pipe of the cell.
const DELIMITER = /^:?-+:?$/;

// MAX_PADDED bounds the empty cells added to short rows (a wide header over
// many short lines would otherwise draw rows × columns cells): the table
// ends where its rows would need more.
const MAX_PADDED = 65536;

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  const cells = [];
  let cell = '';
  let open = true; // text after the last pipe is a cell
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    open = true;
    if (c === '\\' && i + 1 < s.length) {
      cell += s[i + 1] === '|' ? '|' : c + s[i + 1];
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
      open = false;
    } else {
      cell += c;
    }
  }
  if (open) cells.push(cell.trim());
  return cells;
}

// tableAligns is the alignment of each column when lines[i] and the next
// line start a table, else null.
function tableAligns(lines, i) {
  if (i + 1 >= lines.length || !lines[i].includes('|') || !lines[i + 1].includes('|') || startsBlock(lines[i])) return null;
  const delim = splitRow(lines[i + 1]);
  if (!delim.every((c) => DELIMITER.test(c)) || splitRow(lines[i]).length !== delim.length) return null;
  return delim.map((c) => (c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : c.startsWith(':') ? 'left' : ''));
}

function tableStart(lines, i) {
  return tableAligns(lines, i) !== null;
}

function table(lines, i, parent) {
  const aligns = tableAligns(lines, i);
  const row = (cells, tag) => h('tr', null, aligns.map((align, k) => {
    const cell = h(tag, { class: align ? 'align-' + align : null });
    inline(cells[k] ?? '', cell);
    return cell;
  }));
  const el = h('table', null, h('thead', null, row(splitRow(lines[i]), 'th')));
  i += 2;
  let body = null;
  let padded = 0;
  while (i < lines.length && !blank(lines[i]) && !startsBlock(lines[i])) {
    const cells = splitRow(lines[i]);
    padded += Math.max(0, aligns.length - cells.length);
    if (padded > MAX_PADDED) break;
    if (!body) {
      body = h('tbody');
      el.append(body);
    }
    body.append(row(cells, 'td'));
    i++;
  }
  parent.append(h('div', { class: 'table-wrap' }, el));
  return i;
}

// copyText copies text to the clipboard: the Clipboard API, or a hidden
// textarea and execCommand where that is not allowed.
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext && document.hasFocus()) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const ta = h('textarea', { class: 'clipboard-helper', readonly: true, 'aria-hidden': 'true', tabindex: '-1' });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

// copyButton is a button that copies text() and says so for a moment.
export function copyButton(text, label, testid) {
  const span = h('span', null, label);
  const btn = h('button', { type: 'button', class: 'copy-button', 'data-testid': testid, 'aria-label': label }, icon('copy'), span);
  btn.addEventListener('click', guard(async () => {
    const ok = await copyText(typeof text === 'function' ? text() : text);
    span.textContent = ok ? t('copy.done') : t('copy.failed');
    setTimeout(() => {
      span.textContent = label;
    }, 1500);
  }));
  return btn;
}

function codeBlock(text, lang) {
  const code = h('code', null, text);
  if (lang) code.className = 'lang-' + lang.replace(/[^\w-]/g, '');
  return h('div', { class: 'codeblock' },
    h('div', { class: 'codeblock-head' },
      h('span', { class: 'codeblock-lang' }, lang || t('copy.code')),
      copyButton(text, t('copy.copy'), 'copy-code')),
    h('pre', null, code));
}

// matchLink matches [label](url) at text[i] and returns {label, url, end}.
function matchLink(text, i) {
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    if (text[j] === '\\') {
      j++;
      continue;
    }
    if (text[j] === '[') depth++;
    else if (text[j] === ']' && --depth === 0) break;
  }
  if (j >= text.length || text[j + 1] !== '(') return null;
  const label = text.slice(i + 1, j);
  let k = j + 2;
  depth = 1;
  for (; k < text.length; k++) {
    if (text[k] === '(') depth++;
    else if (text[k] === ')' && --depth === 0) break;
  }
  if (k >= text.length) return null;
  let url = text.slice(j + 2, k).trim();
  const angle = /^<([^>]*)>/.exec(url);
  url = angle ? angle[1] : url.split(/\s+/)[0];
  return { label, url, end: k + 1 };
}

function findClose(text, from, d) {
  let j = from;
  while ((j = text.indexOf(d, j)) !== -1) {
    if (d.length === 1 && text[j + 1] === d) {
      j += 2;
      continue;
    }
    return j;
  }
  return -1;
}

const WORD = /[\p{L}\p{N}]/u;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!>~|<]/;

function link(href, parent, label) {
  const a = h('a', { href, target: '_blank', rel: 'noopener noreferrer' });
  inline(label, a);
  parent.append(a);
}

// inline renders emphasis, code, links and bare URLs of one line.
function inline(text, parent) {
  let buf = '';
  const flush = () => {
    if (buf) parent.append(document.createTextNode(buf));
    buf = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length && ESCAPABLE.test(text[i + 1])) {
      buf += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      let n = 1;
      while (text[i + n] === '`') n++;
      const end = text.indexOf('`'.repeat(n), i + n);
      if (end !== -1) {
        flush();
        parent.append(h('code', null, text.slice(i + n, end)));
        i = end + n;
      } else {
        buf += '`'.repeat(n);
        i += n;
      }
      continue;
    }
    if (c === '[') {
      const m = matchLink(text, i);
      if (m) {
        const href = safeHref(m.url);
        if (href && m.label.trim()) {
          flush();
          link(href, parent, m.label);
        } else {
          buf += text.slice(i, m.end);
        }
        i = m.end;
        continue;
      }
    }
    if ((c === '*' || c === '_') && text[i + 1] === c && text[i + 2] && !/\s/.test(text[i + 2])) {
      const end = findClose(text, i + 2, c + c);
      if (end > i + 2 && !/\s/.test(text[end - 1])) {
        flush();
        const s = document.createElement('strong');
        inline(text.slice(i + 2, end), s);
        parent.append(s);
        i = end + 2;
        continue;
      }
    }
    if ((c === '*' || c === '_') && text[i + 1] && !/\s/.test(text[i + 1]) && text[i + 1] !== c &&
        (c === '*' || !WORD.test(text[i - 1] || ''))) {
      const end = findClose(text, i + 1, c);
      if (end > i + 1 && !/\s/.test(text[end - 1]) && (c === '*' || !WORD.test(text[end + 1] || ''))) {
        flush();
        const e = document.createElement('em');
        inline(text.slice(i + 1, end), e);
        parent.append(e);
        i = end + 1;
        continue;
      }
    }
    if ((c === 'h' || c === 'H') && (i === 0 || /[\s(«"'[]/.test(text[i - 1]))) {
      const m = /^https?:\/\/[^\s<>"'`«»]+/i.exec(text.slice(i));
      if (m) {
        let url = m[0].replace(/[.,;:!?]+$/, '');
        if (url.endsWith(')') && !url.includes('(')) url = url.slice(0, -1);
        const href = safeHref(url, ['http:', 'https:']);
        if (href) {
          flush();
          parent.append(h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, url));
          i += url.length;
          continue;
        }
      }
    }
    buf += c;
    i++;
  }
  flush();
}
