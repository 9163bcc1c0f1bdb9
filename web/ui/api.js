// The Yakor HTTP API: JSON requests, the SSE stream of a turn, and errors
// described in words. Every request carries the API key kept in this
// browser, if any; a 401 asks the user for one (setKeyPrompt) and, once a
// working key is given, the request is sent again.
import { t } from './i18n.js';

const KEY = 'yakor.apiKey';
let memoryKey = ''; // the key when localStorage is unavailable

// apiKey is the API key kept in this browser's localStorage.
export const apiKey = {
  get() {
    try {
      return window.localStorage.getItem(KEY) || '';
    } catch {
      return memoryKey;
    }
  },
  set(key) {
    memoryKey = key;
    try {
      window.localStorage.setItem(KEY, key);
    } catch {
      // private mode: the key lasts for this page only
    }
  },
  clear() {
    memoryKey = '';
    try {
      window.localStorage.removeItem(KEY);
    } catch {
      // nothing was stored
    }
  },
};

let keyPrompt = null;
let asking = null;

// setKeyPrompt sets fn(message, usedKey), called when the server answers
// 401: it resolves to true once a working key is stored, false when the
// user gives none. Requests failing together share one prompt.
export function setKeyPrompt(fn) {
  keyPrompt = fn;
}

// keyAgain tells whether a request refused with 401 (sent with usedKey)
// should be sent again: yes when another key was stored meanwhile, or when
// the user gives one now.
async function keyAgain(err, usedKey) {
  if (!keyPrompt || !(err instanceof ApiError) || err.status !== 401) return false;
  if (apiKey.get() !== usedKey) return true;
  if (!asking) asking = Promise.resolve(keyPrompt(err.message, usedKey)).finally(() => { asking = null; });
  return asking;
}

function authorize(headers, key) {
  if (key) headers.Authorization = 'Bearer ' + key;
  return headers;
}

// ApiError is a failed request: status 0 means the server was not reached;
// kind "stream" is an error event inside a reply's stream.
export class ApiError extends Error {
  constructor(status, message, kind = 'http') {
    super(message || 'request failed');
    this.name = 'ApiError';
    this.status = status;
    this.kind = kind;
  }
}

// describe says what went wrong, in the interface's language.
export function describe(err) {
  if (!err) return t('err.generic');
  if (err.name === 'AbortError') return t('chat.stopped');
  if (err instanceof ApiError) {
    if (err.kind === 'network' || err.status === 0) return t('err.unreachable');
    if (err.kind === 'stream') return err.message || t('err.generic');
    if (err.status === 503) return t('err.database') + (err.message ? ' (' + err.message + ')' : '');
    if (err.status === 502 || err.status === 504) return err.message || t('err.model');
    if (err.message) return err.message;
    return t('err.status', { status: err.status });
  }
  return String(err.message || err);
}

// request sends one API request; opts.key sends that key instead of the
// stored one, and a 401 then fails at once (the key dialog checks a key so).
async function request(method, path, body, opts = {}) {
  for (;;) {
    const key = opts.key ?? apiKey.get();
    try {
      return await requestOnce(method, path, body, opts, key);
    } catch (err) {
      if (opts.key !== undefined || !(await keyAgain(err, key))) throw err;
    }
  }
}

async function requestOnce(method, path, body, opts, key) {
  const init = { method, headers: authorize({ Accept: 'application/json' }, key), signal: opts.signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch('/api/v1' + path, init);
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new ApiError(0, '', 'network');
  }
  let text = '';
  try {
    text = await res.text();
  } catch {
    throw new ApiError(0, '', 'network');
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const msg = data && typeof data.error === 'string' ? data.error : text.slice(0, 300);
    throw new ApiError(res.status, msg);
  }
  return { status: res.status, data };
}

// api calls the JSON API and returns the decoded body.
export const api = {
  get: async (path, opts) => (await request('GET', path, undefined, opts)).data,
  post: async (path, body, opts) => (await request('POST', path, body ?? {}, opts)).data,
  patch: async (path, body, opts) => (await request('PATCH', path, body, opts)).data,
  del: async (path, opts) => (await request('DELETE', path, undefined, opts)).data,
  // raw returns {status, data}, for calls whose status matters (201 vs 200).
  raw: request,
  // all follows a list's next_cursor to its end and returns every entry of
  // the list named name: lists come in pages.
  all: async (path, name, opts) => {
    const out = [];
    let cursor = '';
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const data = await api.get(path + sep + 'limit=500' + (cursor ? '&cursor=' + enc(cursor) : ''), opts);
      out.push(...(data[name] || []));
      if (!data.next_cursor) return out;
      cursor = data.next_cursor;
    }
  },
};

export const enc = encodeURIComponent;

// parseEvent reads one SSE block ("event: x\ndata: {...}").
function parseEvent(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return null;
  let payload;
  try {
    payload = JSON.parse(data.join('\n'));
  } catch {
    payload = { text: data.join('\n') };
  }
  return { event, data: payload };
}

// sendMessage posts a message and reads the reply as a stream of SSE
// events: onDelta(text) for each piece of the reply, onSearch(search) for
// each history search the model makes. It resolves to the done payload
// {user_message, reply, turn_id} and rejects with an ApiError (or an
// AbortError when signal aborts).
export async function sendMessage(threadId, content, clientId, { signal, onDelta, onSearch } = {}) {
  for (;;) {
    const key = apiKey.get();
    try {
      return await sendOnce(threadId, content, clientId, { signal, onDelta, onSearch }, key);
    } catch (err) {
      // A 401 comes before the message is stored: sending again is safe,
      // and the client id would keep it from being stored twice anyway.
      if (!(await keyAgain(err, key))) throw err;
    }
  }
}

async function sendOnce(threadId, content, clientId, { signal, onDelta, onSearch }, key) {
  let res;
  try {
    res = await fetch(`/api/v1/threads/${enc(threadId)}/messages`, {
      method: 'POST',
      headers: authorize({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }, key),
      body: JSON.stringify({ content, client_id: clientId }),
      signal,
    });
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new ApiError(0, '', 'network');
  }
  const type = res.headers.get('Content-Type') || '';
  if (!res.ok || !type.includes('text/event-stream')) {
    let data = null;
    let text = '';
    try {
      text = await res.text();
      data = JSON.parse(text);
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data && data.error ? data.error : text.slice(0, 300));
    if (data && data.reply) return data;
    throw new ApiError(res.status, t('err.badStream'), 'stream');
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (err && err.name === 'AbortError') throw err;
        throw new ApiError(0, '', 'network');
      }
      if (chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      buf = buf.replace(/\r\n?/g, '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const ev = parseEvent(buf.slice(0, i));
        buf = buf.slice(i + 2);
        if (!ev) continue;
        if (ev.event === 'delta' && onDelta) onDelta(String(ev.data.text ?? ''));
        else if (ev.event === 'search' && onSearch) onSearch(ev.data);
        else if (ev.event === 'done') return ev.data;
        else if (ev.event === 'error') throw new ApiError(res.status, String(ev.data.error || ''), 'stream');
      }
    }
  } finally {
    try {
      reader.releaseLock();
    } catch {
      // the stream is already released
    }
  }
  throw new ApiError(res.status, t('err.streamEnded'), 'stream');
}
