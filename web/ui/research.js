// The Research page: the research job's status and "Run now", the topics
// it studies, and the study notes it wrote.
import { api, describe } from './api.js';
import { h, icon, guard, fmtDateTime, fmtNum, snippet } from './dom.js';
import { t } from './i18n.js';
import { safeHref } from './markdown.js';

let root;
const page = { status: null, topics: null, articles: null, errors: {}, run: null, add: null, timers: [] };

export function initResearch() {
  root = document.getElementById('research-view');
}

// showResearch loads and draws the page.
export async function showResearch() {
  renderResearch();
  await loadAll();
}

export function leaveResearch() {
  page.timers.forEach(clearTimeout);
  page.timers = [];
}

async function load(key, path, pick) {
  try {
    page[key] = pick(await api.get(path));
    delete page.errors[key];
  } catch (err) {
    page.errors[key] = describe(err);
  }
}

async function loadAll() {
  await Promise.all([
    load('status', '/research/status', (d) => d),
    load('topics', '/research/topics', (d) => d.topics || []),
    load('articles', '/research/articles', (d) => d.articles || []),
  ]);
  renderResearch();
}

// renderResearch draws the page from what is loaded.
export function renderResearch() {
  if (!root) return;
  const focused = document.activeElement && root.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  const draft = root.querySelector('[data-testid=topic-input]');
  const draftValue = draft ? draft.value : '';
  root.replaceChildren(h('div', { class: 'research' },
    h('header', { class: 'research-head' },
      h('h1', null, icon('book'), h('span', null, t('res.title'))),
      h('p', { class: 'muted' }, t('res.intro'))),
    statusCard(), topicsSection(), articlesSection()));
  const input = root.querySelector('[data-testid=topic-input]');
  if (input) input.value = draftValue;
  if (focused) {
    const el = root.querySelector(`[data-testid="${focused}"]`);
    if (el) el.focus();
  }
}

function statusCard() {
  const s = page.status;
  const body = [];
  if (page.errors.status) body.push(h('p', { class: 'error', role: 'alert' }, page.errors.status));
  else if (!s) body.push(h('p', { class: 'muted' }, t('common.loading')));
  else {
    body.push(s.source_configured
      ? h('p', { class: 'ok', 'data-testid': 'research-source' }, t('res.sourceOk'))
      : h('p', { class: 'warning', 'data-testid': 'research-source' }, s.message || t('res.noSource')));
    const last = s.last_run;
    body.push(h('dl', { class: 'facts-grid' },
      h('dt', null, t('res.state')), h('dd', { 'data-testid': 'research-running' }, s.running ? t('res.running') : t('res.idle')),
      h('dt', null, t('res.lastRun')), h('dd', null, last ? t('res.lastRunText', { when: fmtDateTime(last.started_at), status: last.status, trigger: last.trigger }) : t('res.never')),
      h('dt', null, t('res.nextRun')), h('dd', null, s.next_run_at ? fmtDateTime(s.next_run_at) : t('res.notScheduled')),
      h('dt', null, t('res.topicsCount')), h('dd', null, ['pending', 'running', 'done', 'failed'].filter((k) => k in (s.topics || {}))
        .map((k) => `${t('status.' + k)}: ${fmtNum(s.topics[k])}`).join(' · '))));
  }
  const result = page.run ? h('p', { class: 'result ' + page.run.kind, role: 'status', 'data-testid': 'run-result' }, page.run.text) : null;
  return h('section', { class: 'card research-status', 'data-testid': 'research-status' },
    h('div', { class: 'card-head' }, h('h2', null, t('res.status')),
      h('button', { type: 'button', class: 'button primary', 'data-testid': 'run-now', onclick: runNow }, icon('play'), h('span', null, t('res.runNow')))),
    ...body, result);
}

async function runNow() {
  try {
    await api.post('/research/run', {});
    page.run = { kind: 'ok', text: t('res.queued') };
  } catch (err) {
    page.run = err.status === 409 ? { kind: 'info', text: t('res.already') } : { kind: 'error', text: describe(err) };
  }
  renderResearch();
  leaveResearch();
  for (const ms of [1500, 4000, 8000]) page.timers.push(setTimeout(guard(loadAll), ms));
}

function topicsSection() {
  const form = h('form', { class: 'row add-topic' },
    h('input', { type: 'text', required: true, maxlength: '300', 'data-testid': 'topic-input', 'aria-label': t('res.newTopic'), placeholder: t('res.topicPlaceholder') }),
    h('button', { type: 'submit', class: 'button', 'data-testid': 'topic-add' }, icon('plus'), h('span', null, t('res.addTopic'))));
  form.addEventListener('submit', guard(async (e) => {
    e.preventDefault();
    const input = form.querySelector('input');
    const topic = input.value.trim();
    if (!topic) return;
    try {
      const r = await api.raw('POST', '/research/topics', { topic });
      const tp = r.data && r.data.topic;
      page.add = r.status === 201 || (r.data && r.data.created)
        ? { kind: 'ok', text: t('res.added') }
        : { kind: 'info', text: t('res.merged', { topic: tp ? tp.topic : topic }) };
      input.value = '';
    } catch (err) {
      page.add = { kind: 'error', text: describe(err) };
    }
    await loadAll();
  }));
  const list = page.topics;
  let body;
  if (page.errors.topics) body = h('p', { class: 'error', role: 'alert' }, page.errors.topics);
  else if (!list) body = h('p', { class: 'muted' }, t('common.loading'));
  else if (!list.length) body = h('p', { class: 'muted', 'data-testid': 'topics-empty' }, t('res.topicsEmpty'));
  else body = h('ul', { class: 'cards' }, list.map(topicItem));
  return h('section', { class: 'research-section', 'data-testid': 'research-topics' },
    h('h2', null, t('res.topics')), form,
    page.add ? h('p', { class: 'result ' + page.add.kind, role: 'status', 'data-testid': 'topic-result' }, page.add.text) : null,
    body);
}

function topicItem(tp) {
  return h('li', { class: 'card', 'data-testid': 'topic-item', 'data-topic-id': tp.id },
    h('div', { class: 'card-head' },
      h('span', { class: 'topic-name', 'data-testid': 'topic-name' }, tp.topic),
      h('span', { class: 'badge status-' + tp.status, 'data-testid': 'topic-status' }, t('status.' + tp.status))),
    h('div', { class: 'card-meta' },
      h('span', null, t('source.' + tp.source)),
      h('span', null, t('res.attempts', { n: tp.attempts || 0 })),
      tp.fails ? h('span', null, t('res.fails', { n: tp.fails })) : null,
      tp.next_attempt_at && tp.status !== 'done' ? h('span', null, t('res.nextAttempt', { when: fmtDateTime(tp.next_attempt_at) })) : null),
    tp.last_error ? h('p', { class: 'error small' }, t('res.lastError', { error: tp.last_error })) : null);
}

function articlesSection() {
  const list = page.articles;
  let body;
  if (page.errors.articles) body = h('p', { class: 'error', role: 'alert' }, page.errors.articles);
  else if (!list) body = h('p', { class: 'muted' }, t('common.loading'));
  else if (!list.length) body = h('p', { class: 'muted', 'data-testid': 'articles-empty' }, t('res.articlesEmpty'));
  else body = h('ul', { class: 'cards' }, list.map(articleItem));
  return h('section', { class: 'research-section', 'data-testid': 'research-articles' }, h('h2', null, t('res.articles')), body);
}

function articleItem(a) {
  const href = safeHref(a.url || '', ['http:', 'https:']);
  let host = '';
  if (href) host = new URL(href).host;
  const title = a.title || a.url || t('res.untitled');
  return h('li', { class: 'card article', 'data-testid': 'article-item' },
    h('div', { class: 'card-head' },
      href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'article-title' }, title) : h('span', { class: 'article-title' }, title),
      host ? h('span', { class: 'muted small' }, host) : null),
    h('div', { class: 'card-meta' }, h('span', { class: 'badge' }, a.topic), h('span', { class: 'muted' }, fmtDateTime(a.fetched_at))),
    !a.note ? null : a.note.length <= 200 ? h('p', { class: 'note-text', 'data-testid': 'article-note' }, a.note)
      : h('details', { class: 'note', 'data-testid': 'article-note' }, h('summary', null, snippet(a.note, 160)), h('p', { class: 'note-text' }, a.note)));
}
