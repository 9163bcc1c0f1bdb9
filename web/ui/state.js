// The app's state, a tiny event bus and the cache of turn traces.
import { api, enc } from './api.js';

export const state = {
  info: null,
  route: 'chat', // chat | research
  threads: [],
  threadsLoaded: false,
  threadsError: '',
  threadQuery: '',
  threadId: null,
  thread: null,
  threadError: '',
  messages: [],
  messagesLoaded: false,
  // turn is the reply being written, or the last one that failed:
  // {threadId, content, clientId, text, searches, status, error, controller}
  turn: null,
  searches: new Map(), // reply id → searches seen while it streamed
  traces: new Map(), // turn id → trace
  thumbs: new Map(), // reply id → "up" | "down"
  feedbackErrors: new Map(), // reply id → error text
  feedbackSaving: new Set(), // reply ids whose thumb is being stored
  selectedReplyId: null, // the reply the inspector and "in this reply's prompt" show
  panel: 'memory', // memory | inspector
};

const listeners = new Map();

// on registers fn for the event name.
export function on(name, fn) {
  if (!listeners.has(name)) listeners.set(name, []);
  listeners.get(name).push(fn);
}

// emit calls the listeners of name.
export function emit(name, detail) {
  for (const fn of listeners.get(name) || []) fn(detail);
}

const inflight = new Map();

// getTrace returns a turn's trace, from the cache unless force.
export function getTrace(turnId, force = false) {
  if (!force && state.traces.has(turnId)) return Promise.resolve(state.traces.get(turnId));
  if (inflight.has(turnId)) return inflight.get(turnId);
  const p = api.get('/turns/' + enc(turnId)).then((tr) => {
    state.traces.set(turnId, tr);
    const user = (tr.grades || []).find((g) => g.source === 'user');
    if (user && tr.reply_message_id) state.thumbs.set(tr.reply_message_id, user.score >= 4 ? 'up' : 'down');
    emit('trace', tr);
    return tr;
  }).finally(() => inflight.delete(turnId));
  inflight.set(turnId, p);
  return p;
}

// messageById finds a message of the open thread.
export function messageById(id) {
  return state.messages.find((m) => m.id === id) || null;
}

// latestReply is the open thread's newest assistant message.
export function latestReply() {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (m.role === 'assistant' && m.kind !== 'summary') return m;
  }
  return null;
}

// isPhone tells whether the narrow layout (drawers) is in use.
export function isPhone() {
  return window.matchMedia('(max-width: 700px)').matches;
}

// store reads and writes localStorage, which may be unavailable.
export const store = {
  get(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      // private mode: the setting lasts for this page only
    }
  },
};

// navigate goes to a page of the app without reloading it.
export function navigate(path, replace = false) {
  if (location.pathname !== path) history[replace ? 'replaceState' : 'pushState'](null, '', path);
  emit('route');
}
