// The conversation: messages, the composer, the streamed reply with Stop
// and Retry, search chips, feedback and the "Why this answer?" button.
import { api, enc, describe, sendMessage } from './api.js';
import { h, icon, guard, fmtTime, toast } from './dom.js';
import { t, tn } from './i18n.js';
import { renderMarkdown, copyButton } from './markdown.js';
import { state, emit, on, getTrace, messageById, navigate } from './state.js';
import { upsertThread } from './threads.js';

let scroller;
let listEl;
let input;
let sendBtn;
let stopBtn;
let streamBody = null;
let streamChips = null;
let streamFrame = 0;
let observer = null;
const openSummaries = new Set(); // summary cards the user opened

// initChat wires the composer and the message list.
export function initChat() {
  scroller = document.getElementById('messages');
  listEl = document.getElementById('messages-inner');
  input = document.getElementById('composer-input');
  sendBtn = document.getElementById('send');
  stopBtn = document.getElementById('stop');
  document.getElementById('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    guard(submit)();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      guard(submit)();
    } else if (e.key === 'Escape' && state.turn && state.turn.status === 'streaming') {
      state.turn.controller.abort();
    }
  });
  input.addEventListener('input', autosize);
  stopBtn.addEventListener('click', () => {
    if (state.turn && state.turn.controller) state.turn.controller.abort();
  });
  observer = new IntersectionObserver(onVisible, { root: scroller, rootMargin: '300px' });
  on('trace', (tr) => {
    if (!tr.reply_message_id) return;
    const stick = nearBottom();
    updateReplyFoot(tr.reply_message_id);
    if (stick) scrollToBottom(true);
  });
  on('focus-composer', () => input.focus());
  updateComposer();
}

function autosize() {
  input.style.height = 'auto';
  input.style.height = Math.min(input.scrollHeight, 240) + 'px';
}

function newClientId() {
  if (window.crypto && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function titleFrom(content) {
  const line = content.trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 60 ? line.slice(0, 59) + '…' : line;
}

function streaming() {
  return !!(state.turn && state.turn.status === 'streaming');
}

// updateComposer shows Send or Stop.
export function updateComposer() {
  const busy = streaming();
  sendBtn.hidden = busy;
  stopBtn.hidden = !busy;
}

async function submit() {
  const content = input.value;
  if (!content.trim() || streaming()) return;
  if (!state.threadId) {
    let th;
    try {
      th = await api.post('/threads', { title: titleFrom(content) });
    } catch (err) {
      toast(describe(err), 'error', t('common.close'));
      return;
    }
    state.thread = th;
    state.threadId = th.id;
    state.threadError = '';
    state.messages = [];
    state.messagesLoaded = true;
    history.pushState(null, '', '/t/' + enc(th.id));
    upsertThread(th);
    emit('thread-opened', th);
  } else if (state.thread && !(state.thread.title || '').trim() && !state.messages.length) {
    const th = state.thread;
    api.patch('/threads/' + enc(th.id), { title: titleFrom(content) }).then((u) => {
      Object.assign(th, u);
      upsertThread(th);
      emit('thread-renamed', th);
    }).catch((err) => toast(t('threads.renameFailed') + ' ' + describe(err), 'error', t('common.close')));
  }
  input.value = '';
  autosize();
  await runTurn(content, newClientId());
}

// runTurn sends content and streams the reply into the page.
export async function runTurn(content, clientId) {
  const threadId = state.threadId;
  const turn = { threadId, content, clientId, text: '', searches: [], status: 'streaming', error: '', controller: new AbortController() };
  state.turn = turn;
  renderChat();
  scrollToBottom(true);
  updateComposer();
  try {
    const done = await sendMessage(threadId, content, clientId, {
      signal: turn.controller.signal,
      onDelta: (text) => {
        turn.text += text;
        scheduleStream(turn);
      },
      onSearch: (s) => {
        turn.searches.push(s);
        if (state.turn === turn && streamChips) streamChips.replaceChildren(...turn.searches.map(liveChip));
      },
    });
    if (state.turn === turn) state.turn = null;
    if (state.threadId === threadId) {
      for (const m of [done.user_message, done.reply]) if (m && m.id && !messageById(m.id)) state.messages.push(m);
    }
    if (done.reply && done.reply.id) {
      if (turn.searches.length) state.searches.set(done.reply.id, turn.searches);
      if (state.threadId === threadId) state.selectedReplyId = done.reply.id;
    }
    if (state.threadId === threadId) {
      renderChat();
      scrollToBottom(true);
    }
    emit('turn-done', { threadId, done });
  } catch (err) {
    turn.status = err && err.name === 'AbortError' ? 'stopped' : 'failed';
    turn.error = describe(err);
    if (state.threadId === threadId) renderChat();
    emit('turn-failed', { threadId });
  } finally {
    updateComposer();
  }
}

function scheduleStream(turn) {
  if (streamFrame) return;
  streamFrame = requestAnimationFrame(() => {
    streamFrame = 0;
    if (state.turn !== turn || !streamBody) return;
    const stick = nearBottom();
    streamBody.replaceChildren(renderMarkdown(turn.text));
    if (stick) scrollToBottom(true);
  });
}

function nearBottom() {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
}

export function scrollToBottom(force) {
  if (force || nearBottom()) scroller.scrollTop = scroller.scrollHeight;
}

// reads numbers the reads of the open thread's messages: how many began,
// the newest one taken, and the newest one begun (settled: a promise that
// never fails). An older read answered after a newer one is dropped.
const reads = { begun: 0, taken: 0, newest: null };

// readMark is the number of message reads begun so far.
export function readMark() {
  return reads.begun;
}

// readAfter has the open thread's messages read by a request begun after
// mark (a readMark value), the one under way or a new one, and tells
// whether that read was taken.
export async function readAfter(mark) {
  if (reads.taken <= mark && reads.newest && reads.newest.n > mark) await reads.newest.settled;
  if (reads.taken <= mark) await loadMessages(true).catch(() => {});
  return reads.taken > mark;
}

// loadMessages fetches the open thread's messages; when quiet, the list is
// redrawn only if it changed. It emits "messages" when it took a list.
export function loadMessages(quiet = false) {
  if (!state.threadId) return Promise.resolve();
  const n = ++reads.begun;
  const read = takeMessages(state.threadId, n, quiet);
  reads.newest = { n, settled: read.catch(() => {}) };
  return read;
}

async function takeMessages(id, n, quiet) {
  const msgs = await api.all('/threads/' + enc(id) + '/messages', 'messages');
  if (id !== state.threadId || n < reads.taken) return;
  reads.taken = n;
  const changed = !state.messagesLoaded || msgs.length !== state.messages.length ||
    msgs.some((m, i) => m.id !== state.messages[i].id || m.content !== state.messages[i].content);
  state.messages = msgs;
  state.messagesLoaded = true;
  if (!state.selectedReplyId || !messageById(state.selectedReplyId)) {
    const last = [...msgs].reverse().find((m) => m.role === 'assistant' && m.kind !== 'summary');
    state.selectedReplyId = last ? last.id : null;
  }
  if (!quiet || changed) {
    const stick = nearBottom();
    renderChat();
    if (!quiet || stick) scrollToBottom(true);
  }
  emit('messages');
}

function emptyState() {
  return h('div', { class: 'empty', 'data-testid': 'empty-state' },
    h('div', { class: 'empty-icon' }, icon('anchor')),
    h('h2', null, t('chat.emptyTitle')),
    h('p', null, t('chat.emptyText')));
}

// renderChat draws the whole conversation.
export function renderChat() {
  if (!listEl) return;
  // A redraw must not take the keyboard focus off a message.
  const active = document.activeElement;
  const focusedId = active && listEl.contains(active) && active.id && active.id.startsWith('m-') ? active.id : null;
  renderList();
  if (focusedId) {
    const el = document.getElementById(focusedId);
    if (el) el.focus({ preventScroll: true });
  }
}

function renderList() {
  observer.disconnect();
  streamBody = null;
  streamChips = null;
  listEl.replaceChildren();
  if (state.threadError) {
    listEl.append(h('div', { class: 'empty', 'data-testid': 'thread-error', role: 'alert' },
      h('h2', null, t('chat.threadMissing')),
      h('p', null, state.threadError),
      h('button', { type: 'button', class: 'button primary', onclick: () => navigate('/') }, t('chat.startNew'))));
    return;
  }
  if (state.threadId && !state.messagesLoaded) {
    listEl.append(h('div', { class: 'loading' }, t('common.loading')));
    return;
  }
  const turn = state.turn && state.turn.threadId === state.threadId ? state.turn : null;
  if (!state.messages.length && !turn) {
    listEl.append(emptyState());
    return;
  }
  for (const m of state.messages) {
    const el = messageEl(m);
    listEl.append(el);
    if (m.role === 'assistant' && m.turn_id) observer.observe(el);
  }
  if (turn) {
    const stored = state.messages.some((m) => m.client_id && m.client_id === turn.clientId);
    if (!stored) listEl.append(userBubble({ role: 'user', content: turn.content }, true));
    if (turn.status === 'streaming' || turn.text) listEl.append(streamingEl(turn));
    if (turn.status !== 'streaming') listEl.append(failedEl(turn));
  } else {
    const last = state.messages[state.messages.length - 1];
    if (last && last.role === 'user') listEl.append(unansweredEl(last));
  }
}

function head(m, who) {
  return h('div', { class: 'msg-head' },
    h('span', { class: 'msg-author' }, who),
    m.created_at ? h('time', { class: 'msg-time', datetime: m.created_at }, fmtTime(m.created_at)) : null,
    m.id ? h('span', { class: 'msg-id' }, '#' + m.id) : null);
}

function body(text) {
  const b = h('div', { class: 'msg-body md', 'data-testid': 'message-body' });
  b.append(renderMarkdown(text));
  return b;
}

function userBubble(m, pending = false) {
  return h('article', {
    class: 'msg msg-user' + (pending ? ' pending' : ''), 'data-testid': pending ? 'pending-message' : 'message',
    'data-role': 'user', 'data-message-id': m.id || null, id: m.id ? 'm-' + m.id : null, tabindex: '-1',
  }, head(m, t('chat.you')), body(m.content));
}

function messageEl(m) {
  if (m.kind === 'summary') {
    const d = h('details', { class: 'summary-card', 'data-testid': 'summary', id: 'm-' + m.id, 'data-message-id': m.id, open: openSummaries.has(m.id) },
      h('summary', null, icon('layers'), h('span', { class: 'summary-title' }, t('chat.summary')),
        h('span', { class: 'summary-sub' }, t('chat.summaryNote'))),
      body(m.content));
    d.addEventListener('toggle', () => (d.open ? openSummaries.add(m.id) : openSummaries.delete(m.id)));
    return d;
  }
  if (m.role === 'user') return userBubble(m);
  const el = h('article', {
    class: 'msg msg-assistant' + (m.id === state.selectedReplyId && state.panel === 'inspector' ? ' selected' : ''),
    'data-testid': 'message', 'data-role': m.role, 'data-message-id': m.id, id: 'm-' + m.id, tabindex: '-1',
  }, head(m, m.role === 'assistant' ? t('chat.assistant') : t('chat.system')), body(m.content));
  if (m.role === 'assistant') el.append(replyFoot(m));
  return el;
}

function liveChip(s) {
  const n = (s.hits || []).length;
  return h('div', { class: 'chip search-chip', 'data-testid': 'search-chip' }, icon('search'),
    h('span', null, t('chat.searched'), ' ', h('q', null, s.query || ''), ' · ', tn('chat.hits', n)));
}

function replyFoot(m) {
  const foot = h('div', { class: 'msg-foot', 'data-foot-for': m.id });
  fillFoot(foot, m);
  return foot;
}

function updateReplyFoot(id) {
  const foot = listEl && listEl.querySelector(`[data-foot-for="${id}"]`);
  const m = messageById(id);
  if (foot && m) fillFoot(foot, m);
}

function fillFoot(foot, m) {
  foot.replaceChildren();
  const tr = m.turn_id ? state.traces.get(m.turn_id) : null;
  let searches = state.searches.get(m.id);
  if (!searches && tr && tr.searches) searches = tr.searches.map((s) => ({ query: s.query, hits: s.hit_ids || [] }));
  if (searches && searches.length) foot.append(h('div', { class: 'chips' }, searches.map(liveChip)));
  const thumb = state.thumbs.get(m.id);
  const saving = state.feedbackSaving.has(m.id);
  const thumbBtn = (kind) => h('button', {
    type: 'button', class: 'icon-button thumb' + (thumb === kind ? ' on' : ''), 'data-testid': 'thumb-' + kind,
    'aria-pressed': String(thumb === kind), 'aria-busy': String(saving && thumb === kind), 'aria-label': t(kind === 'up' ? 'chat.thumbUp' : 'chat.thumbDown'),
    title: t(kind === 'up' ? 'chat.thumbUp' : 'chat.thumbDown'), onclick: () => feedback(m, kind),
  }, icon('thumb', kind === 'down' ? 'flip' : ''));
  const actions = h('div', { class: 'msg-actions' },
    thumbBtn('up'), thumbBtn('down'),
    copyButton(m.content, t('copy.copy'), 'copy-message'),
    h('button', {
      type: 'button', class: 'why-button', 'data-testid': 'why-button', 'aria-label': t('chat.whyLabel', { id: m.id }),
      onclick: () => emit('inspect', m.id),
    }, icon('why'), h('span', null, t('chat.why'))));
  // The user's own thumb is the reply's judgement: the grader's grade shows
  // only while there is none (the inspector lists both).
  const grade = !thumb && tr && (tr.grades || []).find((g) => g.source !== 'user');
  if (grade) {
    actions.append(h('span', { class: 'grade-badge score-' + grade.score, 'data-testid': 'grade-badge', title: grade.reason },
      t('chat.grade', { score: grade.score })));
  }
  const err = state.feedbackErrors.get(m.id);
  if (err) actions.append(h('span', { class: 'action-error', role: 'alert', 'data-testid': 'feedback-error' }, err));
  foot.append(actions);
}

async function feedback(m, thumb) {
  const prev = state.thumbs.get(m.id);
  state.thumbs.set(m.id, thumb);
  state.feedbackErrors.delete(m.id);
  state.feedbackSaving.add(m.id);
  updateReplyFoot(m.id);
  try {
    await api.post(`/messages/${enc(m.id)}/feedback`, { thumb });
  } catch (err) {
    if (prev) state.thumbs.set(m.id, prev);
    else state.thumbs.delete(m.id);
    state.feedbackErrors.set(m.id, t('chat.feedbackFailed') + ' ' + describe(err));
    return;
  } finally {
    state.feedbackSaving.delete(m.id);
    updateReplyFoot(m.id);
  }
  emit('feedback', m.id);
  if (m.turn_id) getTrace(m.turn_id, true).catch(() => {});
}

function streamingEl(turn) {
  streamBody = body(turn.text);
  streamBody.classList.add(turn.status === 'streaming' ? 'typing' : 'partial');
  streamChips = h('div', { class: 'chips' }, turn.searches.map(liveChip));
  return h('article', { class: 'msg msg-assistant streaming', 'data-testid': 'streaming-reply', 'aria-busy': String(turn.status === 'streaming') },
    head({}, t('chat.assistant')), streamBody, streamChips,
    turn.status === 'streaming' && !turn.text ? h('div', { class: 'thinking' }, h('span'), h('span'), h('span')) : null);
}

function failedEl(turn) {
  const stopped = turn.status === 'stopped';
  return h('div', { class: 'turn-error' + (stopped ? ' stopped' : ''), role: 'alert', 'data-testid': 'turn-error' },
    h('p', null, h('strong', null, stopped ? t('chat.stoppedTitle') : t('chat.failedTitle')), ' ', stopped ? t('chat.stoppedText') : turn.error),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'button primary', 'data-testid': 'retry', onclick: () => runTurn(turn.content, turn.clientId) },
        icon('refresh'), h('span', null, t('chat.retry'))),
      h('button', { type: 'button', class: 'button', 'data-testid': 'dismiss', onclick: () => dismiss(turn) }, t('chat.dismiss'))));
}

async function dismiss(turn) {
  if (state.turn === turn) state.turn = null;
  await loadMessages();
}

function unansweredEl(m) {
  return h('div', { class: 'turn-error stopped', 'data-testid': 'unanswered' },
    h('p', null, t('chat.unanswered')),
    m.client_id ? h('div', { class: 'row' },
      h('button', { type: 'button', class: 'button primary', 'data-testid': 'retry', onclick: () => runTurn(m.content, m.client_id) },
        icon('refresh'), h('span', null, t('chat.retry')))) : null);
}

// scrollToMessage brings a message into view and highlights it.
export function scrollToMessage(id) {
  const el = document.getElementById('m-' + id);
  if (!el) {
    toast(t('chat.notInThread', { id }), 'info', t('common.close'));
    return false;
  }
  emit('close-drawers');
  if (el.tagName === 'DETAILS') el.open = true;
  el.scrollIntoView({ block: 'center', behavior: 'smooth' });
  el.focus({ preventScroll: true });
  el.classList.remove('flash');
  void el.offsetWidth;
  el.classList.add('flash');
  setTimeout(() => el.classList.remove('flash'), 1800);
  return true;
}

// Traces of the replies in view are read lazily (a few at a time) for
// their thumbs, grades and searches.
const queue = [];
let active = 0;
function onVisible(entries) {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    observer.unobserve(e.target);
    const m = messageById(Number(e.target.dataset.messageId));
    if (m && m.turn_id && !state.traces.has(m.turn_id)) queue.push(m.turn_id);
  }
  pump();
}
function pump() {
  while (active < 3 && queue.length) {
    const id = queue.shift();
    active++;
    getTrace(id).catch(() => {}).finally(() => {
      active--;
      pump();
    });
  }
}
