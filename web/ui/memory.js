// The Memory panel: the thread's anchors (topic chain) and facts, editable;
// the long-term memory that entered the selected reply's prompt; and the
// short-term memory reset.
import { api, enc, describe } from './api.js';
import { h, icon, guard, confirmDialog, snippet, toast } from './dom.js';
import { t, tn, getLang } from './i18n.js';
import { safeHref } from './markdown.js';
import { state, getTrace, messageById, on, emit } from './state.js';
import { scrollToMessage, loadMessages, readMark, readAfter } from './chat.js';

let root;
let mem = fresh(null);
let polls = [];

// fresh is the panel's state for a thread. foreign holds the source
// message ids known to lie outside it: not among its messages as read after
// the anchors and facts that name them. refreshes counts the refreshes
// begun, shown the newest one drawn.
function fresh(threadId) {
  return { threadId, anchors: [], facts: [], loaded: false, error: '', editing: null, adding: false, result: '', entries: null, entriesFor: null, entriesError: '',
    foreign: new Set(), refreshes: 0, shown: 0 };
}

// pressed is set while a pointer is down in the panel: a poll's redraw
// waits for its release (and the click it makes), for a node replaced
// between press and release takes no click.
let pressed = false;
let redrawAfterPress = false;

export function initMemory() {
  root = document.getElementById('memory');
  on('feedback', () => guard(refreshMemory)());
  on('messages', guard(messagesRead));
  root.addEventListener('pointerdown', () => { pressed = true; });
  const release = () => {
    pressed = false;
    if (!redrawAfterPress) return;
    redrawAfterPress = false;
    setTimeout(() => renderMemory(), 0); // after the click the release makes
  };
  window.addEventListener('pointerup', release);
  window.addEventListener('pointercancel', release);
}

// schedulePolls refreshes the panel a few times over ~10 s: anchoring,
// facts and grading run as jobs after the reply.
export function schedulePolls() {
  clearPolls();
  const threadId = state.threadId;
  for (const ms of [600, 1500, 3000, 5000, 7500, 10500]) {
    polls.push(setTimeout(guard(async () => {
      if (state.threadId !== threadId) return;
      await refreshMemory();
      await loadMessages(true);
      emit('poll');
    }), ms));
  }
}

export function clearPolls() {
  polls.forEach(clearTimeout);
  polls = [];
}

// refreshMemory reloads the open thread's anchors, facts and the selected
// reply's recalled memory. A refresh that a newer one overtook, or one for
// a thread no longer open, draws nothing.
export async function refreshMemory() {
  const id = state.threadId;
  if (mem.threadId !== id || !id) {
    mem = fresh(id);
    renderMemory(true);
  }
  if (!id) return;
  const cur = mem;
  const n = ++cur.refreshes;
  const mark = readMark();
  let anchors = cur.anchors;
  let facts = cur.facts;
  let error = '';
  try {
    const [a, f] = await Promise.all([api.get(`/threads/${enc(id)}/anchors`), api.all(`/facts?thread=${enc(id)}`, 'facts')]);
    anchors = a.anchors || [];
    facts = f;
    await placeSources(cur, anchors, facts, mark);
  } catch (err) {
    error = describe(err);
  }
  if (cur !== mem || state.threadId !== id || n < cur.shown) return;
  cur.shown = n;
  Object.assign(cur, { anchors, facts, error, loaded: true });
  await loadEntries(cur);
  if (cur === mem) renderMemory();
}

// placeSources learns which source messages of anchors and facts lie in
// another thread: those missing from the open thread's messages as read
// after mark, the moment before anchors and facts were read (a source is
// older than what names it).
async function placeSources(cur, anchors, facts, mark) {
  const ids = [...anchors.map((a) => a.message_id), ...facts.flatMap((f) => f.source_message_ids || [])];
  const unknown = () => ids.filter((id) => id && !messageById(id) && !cur.foreign.has(id));
  if (!unknown().length || !(await readAfter(mark))) return;
  if (cur === mem && state.threadId === cur.threadId) for (const id of unknown()) cur.foreign.add(id);
}

// messagesRead redraws the panel once the open thread's messages were read:
// its source links, and the newest reply's recalled memory.
async function messagesRead() {
  const cur = mem;
  if (cur.threadId !== state.threadId || !cur.loaded) return;
  if (state.selectedReplyId !== cur.entriesFor) await loadEntries(cur);
  if (cur === mem) renderMemory();
}

async function loadEntries(cur) {
  const m = state.selectedReplyId ? messageById(state.selectedReplyId) : null;
  if (!m || !m.turn_id) {
    cur.entries = null;
    cur.entriesFor = null;
    return;
  }
  try {
    const tr = await getTrace(m.turn_id, true);
    cur.entries = memoryEntries(tr);
    cur.entriesFor = m.id;
    cur.entriesError = '';
  } catch (err) {
    cur.entriesError = describe(err);
  }
}

// memoryEntries are the long-term memory entries of a trace's prompt.
export function memoryEntries(tr) {
  const layer = (tr.layers || []).find((l) => l.name === 'memory');
  return (layer && layer.entries) || [];
}

function section(title, count, testid, ...children) {
  return h('section', { class: 'panel-section', 'data-testid': testid },
    h('h3', null, title, count !== null ? h('span', { class: 'count' }, String(count)) : null), ...children);
}

// drawn is what the panel was last drawn from (drawnFrom).
let drawn = '';

// drawnFrom is everything the panel is drawn from.
function drawnFrom() {
  const last = state.messages[state.messages.length - 1];
  return JSON.stringify([state.threadId, state.threadError, state.selectedReplyId, state.messages.length, last && last.id, getLang(),
    mem.threadId, mem.loaded, mem.error, mem.editing, mem.adding, mem.anchors, mem.facts, [...mem.foreign], mem.entries, mem.entriesFor, mem.entriesError, mem.result]);
}

// renderMemory draws the panel; a poll does not redraw over an open editor,
// waits for a pointer pressed in the panel to be released, and leaves the
// panel as it is (an expanded item, the focus) when nothing it shows
// changed.
export function renderMemory(force = false) {
  if (!root || (!force && (mem.editing || mem.adding))) return;
  if (!force && pressed) {
    redrawAfterPress = true;
    return;
  }
  const from = drawnFrom();
  if (!force && from === drawn) return;
  drawn = from;
  root.replaceChildren();
  if (!state.threadId || state.threadError) {
    root.append(h('p', { class: 'muted', 'data-testid': 'memory-empty' }, t('mem.noThread')));
    return;
  }
  if (!mem.loaded || mem.threadId !== state.threadId) {
    root.append(h('p', { class: 'muted' }, t('common.loading')));
    return;
  }
  if (mem.error) root.append(h('p', { class: 'error', role: 'alert' }, mem.error));
  root.append(anchorsSection(), factsSection(), promptSection(), actionsSection());
}

// sourceLink is a link to a source message of the open thread; a message
// of another thread says so, and one not yet placed is named only.
function sourceLink(id) {
  if (messageById(id)) {
    return h('button', { type: 'button', class: 'link', 'data-testid': 'source-link', onclick: () => scrollToMessage(id) }, t('mem.fromMessage', { id }));
  }
  if (mem.foreign.has(id)) return h('span', { class: 'muted', 'data-testid': 'source-elsewhere' }, t('mem.fromOtherMessage', { id }));
  return h('span', { class: 'muted' }, t('mem.fromMessage', { id }));
}

function anchorsSection() {
  const list = mem.anchors;
  if (!list.length) return section(t('mem.anchors'), 0, 'anchors', h('p', { class: 'muted', 'data-testid': 'anchors-empty' }, t('mem.anchorsEmpty')));
  const chain = h('ol', { class: 'chain', 'data-testid': 'anchor-chain', 'aria-label': t('mem.chain') },
    list.map((a) => h('li', { class: a.current ? 'current' : '', 'aria-current': a.current ? 'step' : null },
      h('span', { title: a.topic }, snippet(a.topic, 48)))));
  const items = h('ul', { class: 'cards' }, list.map(anchorItem));
  return section(t('mem.anchors'), list.length, 'anchors', chain, items);
}

function anchorItem(a) {
  const key = 'a:' + a.id;
  if (mem.editing === key) {
    const topic = h('input', { type: 'text', value: a.topic, 'data-testid': 'anchor-topic-input', 'aria-label': t('mem.topic') });
    const data = h('textarea', { rows: '3', value: a.data, 'data-testid': 'anchor-data-input', 'aria-label': t('mem.data') });
    return h('li', { class: 'card editing', 'data-testid': 'anchor-item', 'data-anchor-id': a.id },
      editForm([h('label', null, t('mem.topic'), topic), h('label', null, t('mem.data'), data)], 'anchor', async () => {
        await api.patch('/anchors/' + enc(a.id), { topic: topic.value, data: data.value });
      }));
  }
  return h('li', { class: 'card' + (a.current ? ' current' : ''), 'data-testid': 'anchor-item', 'data-anchor-id': a.id },
    h('div', { class: 'card-head' },
      h('span', { class: 'anchor-topic', 'data-testid': 'anchor-topic' }, a.topic),
      a.current ? h('span', { class: 'badge accent' }, t('mem.current')) : null),
    a.data ? longText(a.data, 'anchor-data') : h('div', { class: 'muted small' }, t('mem.noData')),
    h('div', { class: 'card-meta' }, a.message_id ? sourceLink(a.message_id) : null,
      a.absorbed && a.absorbed.length ? h('span', { class: 'muted' }, t('mem.absorbed', { n: a.absorbed.length })) : null),
    h('div', { class: 'card-actions' },
      h('button', { type: 'button', class: 'button small', 'data-testid': 'anchor-edit', 'aria-label': t('mem.editAnchor', { topic: a.topic }),
        onclick: () => startEdit(key) }, icon('pencil'), h('span', null, t('common.edit'))),
      h('button', { type: 'button', class: 'button small danger-text', 'data-testid': 'anchor-delete', 'aria-label': t('mem.deleteAnchor', { topic: a.topic }),
        onclick: () => remove(t('mem.confirmDeleteAnchor', { topic: a.topic }), '/anchors/' + enc(a.id)) }, icon('trash'), h('span', null, t('common.delete')))));
}

// longText shows text, clamped to a few lines with a toggle when long.
function longText(text, testid) {
  const el = h('div', { class: 'anchor-data', 'data-testid': testid }, text);
  if (text.length <= 240) return el;
  el.classList.add('clamped');
  const btn = h('button', { type: 'button', class: 'link small', 'aria-expanded': 'false' }, t('mem.showAll'));
  btn.addEventListener('click', () => {
    const open = el.classList.toggle('clamped') === false;
    btn.setAttribute('aria-expanded', String(open));
    btn.textContent = open ? t('mem.showLess') : t('mem.showAll');
  });
  return h('div', null, el, btn);
}

function startEdit(key) {
  mem.editing = key;
  mem.adding = false;
  renderMemory(true);
  const field = root.querySelector('.editing input, .editing textarea');
  if (field) field.focus();
}

// editForm is the Save / Cancel wrapper of an inline editor.
function editForm(fields, what, save) {
  const err = h('p', { class: 'error', role: 'alert', hidden: true });
  const form = h('form', { class: 'edit-form' }, ...fields, err,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'button primary small', 'data-testid': what + '-save' }, t('common.save')),
      h('button', { type: 'button', class: 'button small', 'data-testid': what + '-cancel', onclick: () => { mem.editing = null; renderMemory(true); } }, t('common.cancel'))));
  form.addEventListener('submit', guard(async (e) => {
    e.preventDefault();
    try {
      await save();
    } catch (error) {
      err.textContent = describe(error);
      err.hidden = false;
      return;
    }
    mem.editing = null;
    mem.adding = false;
    await refreshMemory();
    renderMemory(true);
  }));
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      mem.editing = null;
      mem.adding = false;
      renderMemory(true);
    }
  });
  return form;
}

async function remove(question, path) {
  if (!(await confirmDialog(question, t('common.delete'), t('common.cancel')))) return;
  try {
    await api.del(path);
  } catch (err) {
    toast(describe(err), 'error', t('common.close'));
  }
  await refreshMemory();
}

const KINDS = ['fact', 'preference', 'constraint', 'decision', 'finding', 'blocker', 'correction'];

function factsSection() {
  const list = mem.facts;
  const add = mem.adding ? addFactForm() : h('button', { type: 'button', class: 'button small', 'data-testid': 'fact-add',
    onclick: () => { mem.adding = true; mem.editing = null; renderMemory(true); root.querySelector('[data-testid=fact-add-text]').focus(); } },
  icon('plus'), h('span', null, t('mem.addFact')));
  const body = list.length ? h('ul', { class: 'cards' }, list.map(factItem)) : h('p', { class: 'muted', 'data-testid': 'facts-empty' }, t('mem.factsEmpty'));
  return section(t('mem.facts'), list.length, 'facts', body, add);
}

function factItem(f) {
  const key = 'f:' + f.id;
  if (mem.editing === key) {
    const text = h('textarea', { rows: '3', value: f.text, 'data-testid': 'fact-edit-input', 'aria-label': t('mem.factText') });
    return h('li', { class: 'card editing', 'data-testid': 'fact-item', 'data-fact-id': f.id },
      editForm([text], 'fact', async () => {
        await api.patch('/facts/' + enc(f.id), { text: text.value });
      }));
  }
  const ids = f.source_message_ids || [];
  return h('li', { class: 'card', 'data-testid': 'fact-item', 'data-fact-id': f.id },
    h('div', { class: 'fact-text', 'data-testid': 'fact-text' }, f.text),
    h('div', { class: 'card-meta' },
      h('span', { class: 'badge kind-' + f.kind }, t('kind.' + f.kind)),
      h('span', { class: 'badge' }, t('scope.' + f.scope)),
      h('span', { class: 'muted' }, f.source === 'user' ? t('mem.byYou') : t('mem.extracted', { pct: Math.round((f.confidence || 0) * 100) })),
      ids.map(sourceLink)),
    h('div', { class: 'card-actions' },
      h('button', { type: 'button', class: 'button small', 'data-testid': 'fact-edit', 'aria-label': t('mem.editFact', { text: snippet(f.text, 40) }),
        onclick: () => startEdit(key) }, icon('pencil'), h('span', null, t('common.edit'))),
      h('button', { type: 'button', class: 'button small danger-text', 'data-testid': 'fact-delete', 'aria-label': t('mem.deleteFact', { text: snippet(f.text, 40) }),
        onclick: () => remove(t('mem.confirmDeleteFact', { text: snippet(f.text, 80) }), '/facts/' + enc(f.id)) }, icon('trash'), h('span', null, t('common.delete')))));
}

function addFactForm() {
  const text = h('textarea', { rows: '2', required: true, 'data-testid': 'fact-add-text', 'aria-label': t('mem.factText'), placeholder: t('mem.factPlaceholder') });
  const scope = h('select', { 'data-testid': 'fact-add-scope', 'aria-label': t('mem.scope') },
    ['chat', 'user', 'project'].map((s) => h('option', { value: s }, t('scope.' + s))));
  const kind = h('select', { 'data-testid': 'fact-add-kind', 'aria-label': t('mem.kind') }, KINDS.map((k) => h('option', { value: k }, t('kind.' + k))));
  const form = editForm([text, h('div', { class: 'row' }, scope, kind)], 'fact-add', async () => {
    await api.post('/facts', { scope: scope.value, kind: kind.value, text: text.value, thread: state.threadId });
  });
  form.classList.add('add-form');
  return form;
}

function promptSection() {
  const m = state.selectedReplyId ? messageById(state.selectedReplyId) : null;
  let body;
  if (!m) body = h('p', { class: 'muted' }, t('mem.noReply'));
  else if (mem.entriesError) body = h('p', { class: 'error' }, mem.entriesError);
  else if (!mem.entries || mem.entriesFor !== m.id) body = h('p', { class: 'muted' }, t('common.loading'));
  else if (!mem.entries.length) body = h('p', { class: 'muted', 'data-testid': 'prompt-memory-empty' }, t('mem.promptEmpty'));
  else body = recalledList(mem.entries);
  return section(t('mem.inPrompt'), null, 'prompt-memory', m ? h('p', { class: 'small muted' }, t('mem.forReply', { id: m.id })) : null, body);
}

const experiences = new Map();

function loadExperience(id) {
  if (!experiences.has(id)) {
    const p = api.get('/experiences/' + enc(id));
    p.catch(() => experiences.delete(id));
    experiences.set(id, p);
  }
  return experiences.get(id);
}

// recalledList shows recalled long-term memory entries with their text.
export function recalledList(entries) {
  return h('ul', { class: 'cards', 'data-testid': 'recalled-list' }, entries.map((e) => {
    const detail = h('div', { class: 'recalled-body' }, t('common.loading'));
    loadExperience(e.id).then((x) => fillExperience(detail, x)).catch((err) => {
      detail.textContent = describe(err);
      detail.classList.add('error');
    });
    return h('li', { class: 'card level-' + e.level, 'data-testid': 'recalled-item' },
      h('div', { class: 'card-head' }, h('span', { class: 'badge level-' + e.level }, t('level.' + e.level)),
        h('span', { class: 'recalled-topic' }, e.topic), h('span', { class: 'muted small' }, t('mem.score', { score: Number(e.score || 0).toFixed(2) }))),
      detail);
  }));
}

function fillExperience(el, x) {
  el.replaceChildren();
  const line = (label, text) => (text ? h('p', { class: 'small' }, h('strong', null, label + ' '), snippet(text, 240)) : null);
  if (x.level === 2) {
    const href = safeHref(x.url || '', ['http:', 'https:']);
    el.append(line(t('exp.title'), x.question), line(t('exp.note'), x.answer),
      href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'small' }, snippet(x.url, 60)) : null);
    return;
  }
  el.append(line(t('exp.question'), x.question), line(x.level === 3 ? t('exp.wrong') : t('exp.answer'), x.answer),
    line(x.level === 3 ? t('exp.why') : t('exp.reason'), x.reason));
}

function actionsSection() {
  return section(t('mem.actions'), null, 'memory-actions',
    h('p', { class: 'small muted' }, t('mem.refreshHelp')),
    h('button', { type: 'button', class: 'button', 'data-testid': 'refresh-memory', onclick: refreshShortTerm }, icon('refresh'), h('span', null, t('mem.refresh'))),
    mem.result ? h('p', { class: 'result', role: 'status', 'data-testid': 'refresh-result' }, mem.result) : null);
}

async function refreshShortTerm() {
  const id = state.threadId;
  if (!(await confirmDialog(t('mem.confirmRefresh'), t('mem.refreshOk'), t('common.cancel')))) return;
  try {
    const r = await api.post(`/threads/${enc(id)}/refresh`, {});
    const d = r.deleted || {};
    mem.result = t('mem.refreshed', { list: [tn('n.anchors', d.anchors || 0), tn('n.summaries', d.summaries || 0), tn('n.chatFacts', d.chat_facts || 0)].join(', ') });
  } catch (err) {
    mem.result = describe(err);
  }
  await refreshMemory();
  await loadMessages(true);
}
