// The inspector: why a reply is what it is. The prompt's layers against
// their budgets, the history searches the model made, the anchoring
// decisions, the grades, the long-term memory recalled and the timings.
import { describe } from './api.js';
import { h, fmtNum, fmtMs, snippet } from './dom.js';
import { t, tn } from './i18n.js';
import { state, getTrace, messageById } from './state.js';
import { scrollToMessage } from './chat.js';
import { memoryEntries, recalledList } from './memory.js';

let root;
let seq = 0;

export function initInspector() {
  root = document.getElementById('inspector');
}

const KNOWN = ['system', 'facts', 'anchors', 'summary', 'window', 'memory', 'message', 'found'];

function layerClass(name) {
  return 'layer-' + (KNOWN.includes(name) ? name : 'other');
}

function layerName(name) {
  return KNOWN.includes(name) ? t('layer.' + name) : name;
}

// renderInspector shows the selected reply's trace, read afresh.
export async function renderInspector() {
  if (!root) return;
  const my = ++seq;
  const m = state.selectedReplyId ? messageById(state.selectedReplyId) : null;
  if (!m) {
    root.replaceChildren(h('p', { class: 'muted', 'data-testid': 'inspector-empty' }, t('insp.pick')));
    return;
  }
  if (!m.turn_id) {
    root.replaceChildren(h('p', { class: 'muted' }, t('insp.noTrace')));
    return;
  }
  if (!root.firstChild || root.dataset.reply !== String(m.id)) root.replaceChildren(h('p', { class: 'muted' }, t('common.loading')));
  let tr;
  try {
    tr = await getTrace(m.turn_id, true);
  } catch (err) {
    if (my === seq) root.replaceChildren(h('p', { class: 'error', role: 'alert' }, describe(err)));
    return;
  }
  if (my !== seq) return;
  root.dataset.reply = String(m.id);
  const open = new Set([...root.querySelectorAll('details[open]')].map((d) => d.dataset.key));
  root.replaceChildren(...view(m, tr));
  for (const d of root.querySelectorAll('details')) if (open.has(d.dataset.key)) d.open = true;
  fitLabels();
}

// fitLabels shortens a segment's label to the layer's name, or hides it,
// when it does not fit the segment (the legend has them all).
export function fitLabels() {
  for (const span of root.querySelectorAll('.seg span')) {
    const seg = span.parentElement;
    if (!seg.clientWidth || span.scrollWidth <= seg.clientWidth - 8) continue;
    span.textContent = seg.dataset.short || '';
    if (span.scrollWidth > seg.clientWidth - 8) span.textContent = '';
  }
}

function block(title, testid, ...children) {
  return h('section', { class: 'panel-section', 'data-testid': testid }, h('h3', null, title), ...children);
}

function view(m, tr) {
  const out = [];
  out.push(h('div', { class: 'insp-head', 'data-testid': 'inspector-head' },
    h('p', null, h('strong', null, t('insp.reply', { id: m.id })), ' ',
      h('span', { class: 'badge status-' + tr.status }, t('status.' + tr.status))),
    h('p', { class: 'small muted' }, t('insp.model', { model: [tr.provider, tr.model].filter(Boolean).join(' / ') || '—' }),
      ' · ', t('insp.promptChars', { n: fmtNum(tr.prompt_chars || 0) }))));
  if (tr.error) out.push(h('p', { class: 'error', role: 'alert', 'data-testid': 'turn-trace-error' }, t('insp.failed', { error: tr.error })));
  if (tr.memory_error) out.push(h('p', { class: 'warning', 'data-testid': 'memory-error' }, t('insp.memoryError', { error: tr.memory_error })));
  out.push(block(t('insp.layers'), 'inspector-layers', stackedBar(tr.layers || []), layerTable(tr.layers || [])));
  out.push(block(t('insp.searches'), 'inspector-searches', searches(tr.searches || [])));
  out.push(block(t('insp.anchoring'), 'inspector-anchors', decisions(tr.anchors || [])));
  out.push(block(t('insp.grade'), 'inspector-grades', grades(tr.grades || [])));
  const entries = memoryEntries(tr);
  out.push(block(t('insp.memory'), 'inspector-memory', entries.length ? recalledList(entries) : h('p', { class: 'muted' }, t('mem.promptEmpty'))));
  out.push(block(t('insp.timings'), 'inspector-timings', timings(tr.timings_ms || {})));
  return out;
}

// stackedBar draws the layers as segments of one bar, the window's unused
// budget after its segment.
function stackedBar(layers) {
  const used = layers.filter((l) => l.chars > 0);
  const win = layers.find((l) => l.name === 'window');
  const free = win && win.budget > win.chars ? win.budget - win.chars : 0;
  const total = used.reduce((n, l) => n + l.chars, 0) + free;
  const bar = h('div', { class: 'stack', 'data-testid': 'stacked-bar', role: 'img', 'aria-label': t('insp.barLabel', { n: fmtNum(total - free) }) });
  const legend = h('ul', { class: 'legend' });
  const seg = (cls, chars, label, short, title) => {
    const s = h('div', { class: 'seg ' + cls, 'data-testid': 'layer-seg', title, 'data-short': short }, h('span', null, label));
    s.style.width = (total ? (chars / total) * 100 : 0) + '%';
    bar.append(s);
  };
  for (const l of used) {
    const label = l.name === 'window' && l.budget ? `${layerName(l.name)} ${fmtNum(l.chars)}/${fmtNum(l.budget)}` : `${layerName(l.name)} ${fmtNum(l.chars)}`;
    seg(layerClass(l.name), l.chars, label, layerName(l.name), label);
    if (l.name === 'window' && free) seg('seg-free', free, t('insp.windowFree', { n: fmtNum(free) }), '', t('insp.windowFree', { n: fmtNum(free) }));
    legend.append(h('li', null, h('span', { class: 'swatch ' + layerClass(l.name) }), label));
  }
  if (!used.length) bar.append(h('span', { class: 'muted small' }, t('insp.noLayers')));
  if (free) legend.append(h('li', null, h('span', { class: 'swatch seg-free' }), t('insp.windowFree', { n: fmtNum(free) })));
  return h('div', null, bar, legend);
}

function meter(chars, budget) {
  if (!budget) return h('span', { class: 'muted' }, '—');
  const pct = Math.min(100, (chars / budget) * 100);
  const fill = h('span', { class: pct >= 100 ? 'full' : '' });
  fill.style.width = pct + '%';
  return h('span', { class: 'budget' }, h('span', { class: 'meter', title: Math.round(pct) + '%' }, fill), fmtNum(budget));
}

function layerTable(layers) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'layers', 'data-testid': 'layers-table' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('insp.layer')), h('th', { scope: 'col', class: 'num' }, t('insp.chars')),
      h('th', { scope: 'col' }, t('insp.budget')), h('th', { scope: 'col', class: 'num' }, t('insp.items')))),
    h('tbody', null, layers.map((l) => h('tr', null,
      h('th', { scope: 'row' }, h('span', { class: 'swatch ' + layerClass(l.name) }), layerName(l.name)),
      h('td', { class: 'num' }, fmtNum(l.chars)),
      h('td', null, meter(l.chars, l.budget)),
      h('td', { class: 'num' }, fmtNum(l.items)))))));
}

function hitButton(id, score) {
  const m = messageById(id);
  const text = m ? `#${id} · ${m.role === 'user' ? t('chat.you') : t('chat.assistant')}: ${snippet(m.content, 110)}` : t('insp.hitElsewhere', { id });
  return h('li', null, h('button', { type: 'button', class: 'hit', 'data-testid': 'inspector-hit', 'data-message-id': id, disabled: !m, onclick: () => scrollToMessage(id) },
    h('span', { class: 'hit-text' }, text), score !== undefined ? h('span', { class: 'hit-score' }, Number(score).toFixed(3)) : null));
}

function searches(list) {
  if (!list.length) return h('p', { class: 'muted', 'data-testid': 'no-searches' }, t('insp.noSearches'));
  return h('ol', { class: 'searches' }, list.map((s) => h('li', { class: 'card', 'data-testid': 'inspector-search' },
    h('div', { class: 'card-head' }, h('span', { class: 'badge' }, t('insp.round', { n: s.round })), h('q', { class: 'search-query', 'data-testid': 'search-query' }, s.query)),
    h('div', { class: 'chips' }, (s.keywords || []).map((k) => h('span', { class: 'chip small' }, k))),
    h('p', { class: 'small muted' }, tn('chat.hits', (s.hit_ids || []).length), ' · ', fmtMs(s.took_ms), ' · ', t('insp.charsN', { n: fmtNum(s.chars || 0) })),
    h('ul', { class: 'hits' }, (s.hit_ids || []).map((id, i) => hitButton(id, (s.scores || [])[i]))))));
}

function decisions(list) {
  if (!list.length) return h('p', { class: 'muted', 'data-testid': 'no-decisions' }, t('insp.noDecisions'));
  return h('ul', { class: 'decisions' }, list.map((d) => h('li', { 'data-testid': 'anchor-decision' },
    h('span', { class: 'badge decision-' + String(d.decision).toLowerCase() }, d.decision),
    ' ', h('span', { class: 'small' }, t('insp.decisionFor', { id: d.message_id })), ' ',
    d.topic ? h('q', null, d.topic) : null,
    h('div', { class: 'small muted' }, t('insp.rule', { rule: d.rule || '—', source: d.source || '—', sim: Number(d.similarity || 0).toFixed(2) })))));
}

function grades(list) {
  if (!list.length) return h('p', { class: 'muted', 'data-testid': 'grade-pending' }, t('insp.notGraded'));
  const mine = (g) => (g.source === 'user' ? 0 : 1);
  return h('ul', { class: 'cards' }, [...list].sort((a, b) => mine(a) - mine(b)).map((g) => h('li', { class: 'card', 'data-testid': 'grade', 'data-source': g.source },
    h('div', { class: 'card-head' },
      h('span', { class: 'score score-' + g.score }, t('chat.grade', { score: g.score })),
      h('span', { class: 'muted small' }, g.source === 'user' ? t('insp.byUser') : t('insp.byGrader', { grader: g.grader || '—' }))),
    g.reason ? h('p', { class: 'small' }, g.reason) : null,
    g.research_topic ? h('p', { class: 'small muted' }, t('insp.researchTopic', { topic: g.research_topic })) : null)));
}

function timings(tm) {
  const main = [['total', 'insp.tTotal'], ['model', 'insp.tModel'], ['memory', 'insp.tMemory'], ['first_delta', 'insp.tFirst']];
  const rest = Object.keys(tm).filter((k) => !main.some(([m]) => m === k)).sort();
  return h('dl', { class: 'timings', 'data-testid': 'timings' },
    main.filter(([k]) => k in tm).map(([k, label]) => [h('dt', null, t(label)), h('dd', null, fmtMs(tm[k]))]),
    rest.map((k) => [h('dt', { class: 'muted' }, k.replace(/_/g, ' ')), h('dd', { class: 'muted' }, fmtMs(tm[k]))]));
}
