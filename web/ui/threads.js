// The sidebar: the thread list, a new-thread button, renaming in place,
// exporting and deleting a conversation, and a search box that filters by
// title.
import { api, enc, describe } from './api.js';
import { h, icon, guard, fmtClock, dayOf, fmtDay, toast } from './dom.js';
import { t } from './i18n.js';
import { state, navigate, emit } from './state.js';

let listEl;
let searchTimer = 0;
let renaming = null; // id of the thread being renamed

// initThreads wires the sidebar's controls.
export function initThreads() {
  listEl = document.getElementById('thread-list');
  document.getElementById('new-thread').addEventListener('click', guard(() => {
    navigate('/');
    emit('focus-composer');
  }));
  const search = document.getElementById('thread-search');
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(guard(() => {
      state.threadQuery = search.value.trim();
      return loadThreads();
    }), 250);
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && search.value) {
      search.value = '';
      state.threadQuery = '';
      guard(loadThreads)();
    }
  });
}

// loadThreads fetches the thread list (filtered by the search box).
export async function loadThreads() {
  const q = state.threadQuery;
  try {
    const threads = await api.all('/threads' + (q ? '?q=' + enc(q) : ''), 'threads');
    if (q !== state.threadQuery) return;
    state.threads = threads;
    state.threadsError = '';
  } catch (err) {
    state.threadsError = describe(err);
  }
  state.threadsLoaded = true;
  renderThreads();
}

export function threadTitle(th) {
  return (th && th.title && th.title.trim()) || t('threads.untitled');
}

// renderThreads draws the list.
export function renderThreads() {
  if (!listEl) return;
  listEl.replaceChildren();
  if (state.threadsError) {
    listEl.append(h('li', { class: 'side-note error', role: 'alert' }, state.threadsError));
    return;
  }
  if (!state.threadsLoaded) {
    listEl.append(h('li', { class: 'side-note' }, t('common.loading')));
    return;
  }
  if (!state.threads.length) {
    listEl.append(h('li', { class: 'side-note', 'data-testid': 'threads-empty' },
      state.threadQuery ? t('threads.noMatch', { q: state.threadQuery }) : t('threads.empty')));
    return;
  }
  dayGroups(state.threads).forEach((g, n) => {
    const label = h('h2', { class: 'thread-day-label', 'data-testid': 'thread-day-label', id: 'thread-day-' + n },
      g.day ? fmtDay(g.day, t('threads.today'), t('threads.yesterday')) : t('threads.undated'));
    listEl.append(h('li', { class: 'thread-day', 'data-testid': 'thread-day' }, label,
      h('ul', { class: 'thread-day-list', 'aria-labelledby': 'thread-day-' + n }, g.threads.map(threadItem))));
  });
}

function threadTime(th) {
  return th.updated_at || th.created_at;
}

// dayGroups splits the threads, newest first, into runs of one local day
// each.
function dayGroups(threads) {
  const now = new Date();
  const groups = [];
  for (const th of threads) {
    const day = dayOf(threadTime(th), now);
    const key = day ? day.key : '';
    let g = groups[groups.length - 1];
    if (!g || g.key !== key) {
      g = { key, day, threads: [] };
      groups.push(g);
    }
    g.threads.push(th);
  }
  return groups;
}

function threadItem(th) {
  const current = th.id === state.threadId && state.route === 'chat';
  const li = h('li', { class: 'thread' + (current ? ' current' : ''), 'data-testid': 'thread-item', 'data-thread-id': th.id });
  if (renaming === th.id) {
    li.append(renameForm(th));
    return li;
  }
  const a = h('a', { class: 'thread-link', href: '/t/' + enc(th.id), 'data-testid': 'thread-link', 'aria-current': current ? 'page' : null },
    h('span', { class: 'thread-title', 'data-testid': 'thread-title' }, threadTitle(th)),
    h('time', { class: 'thread-time', 'data-testid': 'thread-time', datetime: threadTime(th) || null }, fmtClock(threadTime(th))));
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate('/t/' + enc(th.id));
  });
  a.addEventListener('dblclick', (e) => {
    e.preventDefault();
    startRename(th.id);
  });
  li.append(a, h('button', {
    type: 'button', class: 'icon-button thread-rename', 'data-testid': 'thread-rename',
    'aria-label': t('threads.rename', { title: threadTitle(th) }), title: t('threads.renameShort'),
    onclick: () => startRename(th.id),
  }, icon('pencil')), h('button', {
    type: 'button', class: 'icon-button thread-rename', 'data-testid': 'thread-export',
    'aria-label': t('threads.export', { title: threadTitle(th) }), title: t('threads.exportShort'),
    onclick: guard(() => exportThread(th)),
  }, icon('download')), deleteButton(th));
  return li;
}

// exportThread downloads the conversation as JSON: the thread and all of
// its messages.
async function exportThread(th) {
  try {
    const [thread, messages] = await Promise.all([api.get('/threads/' + enc(th.id)), api.all('/threads/' + enc(th.id) + '/messages', 'messages')]);
    const blob = new Blob([JSON.stringify({ thread, messages }, null, 2)], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: 'yakor-' + th.id + '.json', 'data-testid': 'thread-export-link', hidden: true });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  } catch (err) {
    toast(t('threads.exportFailed') + ' ' + describe(err), 'error', t('common.close'));
  }
}

// deleteButton deletes the conversation on a second click within four
// seconds (the first one asks, in the button itself): everything derived
// from it goes too.
function deleteButton(th) {
  let armed = 0;
  const b = h('button', {
    type: 'button', class: 'icon-button thread-rename', 'data-testid': 'thread-delete',
    'aria-label': t('threads.delete', { title: threadTitle(th) }), title: t('threads.deleteShort'),
  }, icon('trash'));
  b.addEventListener('click', guard(async () => {
    if (!armed) {
      armed = setTimeout(() => { armed = 0; b.classList.remove('armed'); b.title = t('threads.deleteShort'); }, 4000);
      b.classList.add('armed');
      b.title = t('threads.deleteConfirm');
      b.setAttribute('aria-label', t('threads.deleteConfirm'));
      return;
    }
    clearTimeout(armed);
    try {
      await api.del('/threads/' + enc(th.id));
      state.threads = state.threads.filter((x) => x.id !== th.id);
      if (state.threadId === th.id) navigate('/');
      renderThreads();
    } catch (err) {
      toast(t('threads.deleteFailed') + ' ' + describe(err), 'error', t('common.close'));
    }
  }));
  return b;
}

function startRename(id) {
  renaming = id;
  renderThreads();
  const input = listEl.querySelector('[data-testid=thread-rename-input]');
  if (input) {
    input.focus();
    input.select();
  }
}

function renameForm(th) {
  const input = h('input', {
    type: 'text', class: 'rename-input', value: th.title || '', maxlength: '200',
    'data-testid': 'thread-rename-input', 'aria-label': t('threads.newTitle'),
  });
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    renaming = null;
    const title = input.value.trim();
    if (save && title !== (th.title || '')) {
      try {
        const updated = await api.patch('/threads/' + enc(th.id), { title });
        Object.assign(th, updated);
        if (state.thread && state.thread.id === th.id) Object.assign(state.thread, updated);
        emit('thread-renamed', th);
      } catch (err) {
        toast(t('threads.renameFailed') + ' ' + describe(err), 'error', t('common.close'));
      }
    }
    renderThreads();
  };
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      guard(finish)(true);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      guard(finish)(false);
    }
  });
  input.addEventListener('blur', () => guard(finish)(true));
  return h('div', { class: 'rename' }, input);
}

// touchThread moves the open thread to the top after a turn.
export function upsertThread(th) {
  const i = state.threads.findIndex((x) => x.id === th.id);
  if (i >= 0) state.threads.splice(i, 1);
  if (!state.threadQuery || (th.title || '').toLowerCase().includes(state.threadQuery.toLowerCase())) state.threads.unshift(th);
  renderThreads();
}
