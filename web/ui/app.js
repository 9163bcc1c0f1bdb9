// The app: routing (/, /t/<thread>, /research), the panels and drawers, the
// offline banner, the language switch and the API key dialog.
import { api, enc, describe } from './api.js';
import { setReporter, setLocale, toast, guard } from './dom.js';
import { t, getLang, setLang, translateStatic } from './i18n.js';
import { state, on, emit, isPhone, store, latestReply } from './state.js';
import { initThreads, loadThreads, renderThreads, threadTitle, upsertThread } from './threads.js';
import { initChat, renderChat, loadMessages, updateComposer } from './chat.js';
import { initMemory, refreshMemory, renderMemory, schedulePolls, clearPolls } from './memory.js';
import { initInspector, renderInspector } from './inspector.js';
import { initResearch, showResearch, renderResearch, leaveResearch } from './research.js';
import { initKeys } from './keys.js';

const app = document.getElementById('app');

function byId(id) {
  return document.getElementById(id);
}

// Panels and drawers. On a wide screen the right panel is a column that
// can be collapsed; on a phone the sidebar and the panel are drawers.
function setPanelOpen(open) {
  if (isPhone()) {
    app.classList.toggle('panel-open', open);
    if (open) app.classList.remove('sidebar-open');
  } else {
    app.classList.toggle('panel-closed', !open);
    store.set('yakor.panel', open ? 'open' : 'closed');
  }
  syncToggles();
}

function panelOpen() {
  return isPhone() ? app.classList.contains('panel-open') : !app.classList.contains('panel-closed');
}

function setSidebarOpen(open) {
  app.classList.toggle('sidebar-open', open);
  if (open) app.classList.remove('panel-open');
  syncToggles();
  if (open) byId('new-thread').focus();
}

function syncToggles() {
  byId('panel-toggle').setAttribute('aria-expanded', String(panelOpen()));
  byId('sidebar-toggle').setAttribute('aria-expanded', String(app.classList.contains('sidebar-open')));
}

function closeDrawers() {
  app.classList.remove('sidebar-open', 'panel-open');
  syncToggles();
}

function setTab(tab) {
  state.panel = tab;
  for (const btn of document.querySelectorAll('[role=tab]')) {
    const on = btn.dataset.tab === tab;
    btn.setAttribute('aria-selected', String(on));
    btn.tabIndex = on ? 0 : -1;
  }
  byId('memory').hidden = tab !== 'memory';
  byId('inspector').hidden = tab !== 'inspector';
  for (const el of document.querySelectorAll('.msg.selected')) el.classList.remove('selected');
  if (tab === 'inspector' && state.selectedReplyId) {
    const el = byId('m-' + state.selectedReplyId);
    if (el) el.classList.add('selected');
  }
}

async function inspect(replyId) {
  state.selectedReplyId = replyId;
  setTab('inspector');
  setPanelOpen(true);
  await Promise.all([renderInspector(), refreshMemory()]);
}

function renderTitle() {
  const title = state.route === 'research' ? t('res.title') : state.thread ? threadTitle(state.thread) : t('chat.newTitle');
  byId('thread-title').textContent = title;
  document.title = title + ' · Yakor';
}

// route shows the page for the current location.
async function route() {
  const path = location.pathname;
  closeDrawers();
  clearPolls();
  if (path === '/research') {
    state.route = 'research';
    app.classList.add('route-research');
    byId('chat-view').hidden = true;
    byId('research-view').hidden = false;
    byId('nav-research').setAttribute('aria-current', 'page');
    renderTitle();
    renderThreads();
    await showResearch();
    return;
  }
  leaveResearch();
  state.route = 'chat';
  app.classList.remove('route-research');
  byId('chat-view').hidden = false;
  byId('research-view').hidden = true;
  byId('nav-research').removeAttribute('aria-current');
  const m = /^\/t\/([^/]+)\/?$/.exec(path);
  const id = m ? decodeURIComponent(m[1]) : null;
  if (id !== state.threadId || !id) openThread(id);
  renderTitle();
  renderThreads();
  renderChat();
  // The memory panel reads first: the messages read after its anchors and
  // facts hold every message they name in this thread.
  if (id && state.threadId === id) await Promise.all([refreshMemory(), loadThread(id)]);
  else await refreshMemory();
}

function openThread(id) {
  state.threadId = id;
  state.thread = id ? state.threads.find((x) => x.id === id) || null : null;
  state.threadError = '';
  state.messages = [];
  state.messagesLoaded = !id;
  state.selectedReplyId = null;
  setTab('memory');
  guard(renderInspector)();
  if (id) store.set('yakor.thread', id);
}

async function loadThread(id) {
  try {
    const [th] = await Promise.all([api.get('/threads/' + enc(id)), loadMessages()]);
    if (state.threadId !== id) return;
    state.thread = th;
  } catch (err) {
    if (state.threadId !== id) return;
    state.threadError = err.status === 404 ? t('chat.threadMissingText') : describe(err);
    state.messagesLoaded = true;
    renderMemory(true);
  }
  renderTitle();
  renderChat();
}

async function loadInfo() {
  try {
    state.info = await api.get('/info');
  } catch (err) {
    toast(describe(err), 'error', t('common.close'));
    return;
  }
  byId('offline-banner').hidden = !state.info.offline || store.get('yakor.banner') === 'closed';
  const chat = state.info.chat || {};
  byId('model-name').textContent = chat.model ? `${chat.provider} · ${chat.model}` : '';
}

// translate sets the page's static texts; a phone gets the short
// placeholder.
function translate() {
  translateStatic();
  byId('composer-input').setAttribute('placeholder', t(isPhone() ? 'composer.placeholderShort' : 'composer.placeholder'));
}

function renderAll() {
  translate();
  setLocale(getLang());
  for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === getLang()));
  renderTitle();
  renderThreads();
  if (state.route === 'research') renderResearch();
  renderChat();
  renderMemory(true);
  if (state.panel === 'inspector') guard(renderInspector)();
}

function initShell() {
  byId('panel-toggle').addEventListener('click', () => setPanelOpen(!panelOpen()));
  byId('panel-close').addEventListener('click', () => setPanelOpen(false));
  byId('sidebar-toggle').addEventListener('click', () => setSidebarOpen(!app.classList.contains('sidebar-open')));
  byId('sidebar-close').addEventListener('click', () => setSidebarOpen(false));
  byId('scrim').addEventListener('click', closeDrawers);
  byId('banner-close').addEventListener('click', () => {
    byId('offline-banner').hidden = true;
    store.set('yakor.banner', 'closed');
  });
  byId('nav-research').addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    history.pushState(null, '', '/research');
    guard(route)();
  });
  for (const btn of document.querySelectorAll('[role=tab]')) {
    btn.addEventListener('click', () => {
      setTab(btn.dataset.tab);
      if (btn.dataset.tab === 'inspector') {
        if (!state.selectedReplyId) {
          const r = latestReply();
          state.selectedReplyId = r ? r.id : null;
        }
        guard(renderInspector)();
      }
    });
    btn.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const other = document.querySelector(`[role=tab]:not([data-tab="${btn.dataset.tab}"])`);
      other.click();
      other.focus();
    });
  }
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.addEventListener('click', () => {
      setLang(b.dataset.lang);
      renderAll();
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && (app.classList.contains('sidebar-open') || app.classList.contains('panel-open'))) closeDrawers();
  });
  if (!isPhone() && store.get('yakor.panel') === 'closed') app.classList.add('panel-closed');
  syncToggles();
}

function wireEvents() {
  on('route', guard(route));
  on('close-drawers', closeDrawers);
  on('inspect', guard(inspect));
  on('thread-opened', (th) => {
    renderTitle();
    renderThreads();
    setTab('memory');
    guard(refreshMemory)();
  });
  on('thread-renamed', () => {
    renderTitle();
    renderThreads();
  });
  on('turn-done', ({ threadId }) => {
    if (threadId !== state.threadId) return;
    const th = state.threads.find((x) => x.id === threadId) || state.thread;
    if (th) {
      th.updated_at = new Date().toISOString();
      upsertThread(th);
    }
    guard(refreshMemory)();
    if (state.panel === 'inspector') guard(renderInspector)();
    schedulePolls();
  });
  on('turn-failed', () => guard(refreshMemory)());
  on('poll', () => {
    if (state.panel === 'inspector' && panelOpen()) guard(renderInspector)();
  });
  on('feedback', () => {
    if (state.panel === 'inspector') guard(renderInspector)();
  });
  window.addEventListener('popstate', guard(route));
}

function boot() {
  setReporter((err) => toast(describe(err), 'error', t('common.close')));
  setLang(getLang());
  setLocale(getLang());
  initKeys();
  initShell();
  initThreads();
  initChat();
  initMemory();
  initInspector();
  initResearch();
  wireEvents();
  translate();
  window.matchMedia('(max-width: 700px)').addEventListener('change', translate);
  for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === getLang()));
  updateComposer();
  guard(loadInfo)();
  guard(loadThreads)();
  guard(route)();
  // Grades and anchors of an inspected reply arrive late: refresh the
  // inspector while it is open.
  setInterval(guard(async () => {
    if (document.hidden || state.route !== 'chat' || state.panel !== 'inspector' || !panelOpen()) return;
    const m = state.selectedReplyId ? state.messages.find((x) => x.id === state.selectedReplyId) : null;
    const tr = m && m.turn_id ? state.traces.get(m.turn_id) : null;
    if (tr && (tr.grades || []).length && (tr.anchors || []).length) return;
    await renderInspector();
  }), 15000);
  emit('ready');
}

boot();
