import { ApiError, followEvents, setToken, takeRejectedToken, api } from './api.js';
import { errorBox, type ViewContext } from './components.js';
import { h, mount } from './dom.js';
import type { SkillEvent, Stats } from './types.js';
import { searchView } from './views/search.js';
import { sessionsView, sessionView } from './views/sessions.js';
import { skillsView } from './views/skills.js';
import { skillView } from './views/skill.js';

const main = document.getElementById('main')!;
const statsLine = document.getElementById('stats')!;
const live = document.getElementById('live')!;
const toasts = document.getElementById('toasts')!;

const ctx: ViewContext = {
  notify(message, kind = 'info') {
    const toast = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
    toasts.append(toast);
    setTimeout(() => toast.remove(), 6000);
  },
  changed: () => void refreshStats(),
};

/** The current view's refresh, when it has one (a skill event re-reads the list). */
let refreshView: (() => Promise<void>) | null = null;

async function refreshStats() {
  try {
    const s = await api.get<Stats>('/api/stats');
    statsLine.textContent = `${s.skills.live} skills (${s.skills.byStatus.active} active, ${s.skills.byStatus.probationary} probationary, ${s.skills.live - s.skills.enabled} disabled) · ${s.sessions.total} sessions · namespace ${s.namespace} · embedder ${s.backends.embedder} · distiller ${s.backends.distiller}`;
  } catch {
    statsLine.textContent = '';
  }
}

/** `#/skills/<name>?q=…` -> ['skills', '<name>'] and the query. */
function parseHash(): { parts: string[]; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

/** Renders the view of the current hash; after a navigation, focus moves to its heading. */
async function route(moveFocus = true) {
  const { parts, params } = parseHash();
  const [section = 'skills', id] = parts;
  refreshView = null;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav.main a')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  mount(main, h('p', { class: 'muted' }, 'Loading…'));
  try {
    if (section === 'skills' && id) await skillView(main, id, ctx);
    else if (section === 'skills') refreshView = (await skillsView(main, params, ctx)).refresh;
    else if (section === 'sessions' && id) await sessionView(main, id);
    else if (section === 'sessions') await sessionsView(main, params, ctx);
    else if (section === 'search') await searchView(main, params);
    else
      mount(main, h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, h('a', { href: '#/skills' }, 'Go to the skills')));
    document.title = `${main.querySelector('h1')?.textContent ?? 'Skillsmith'} · Skillsmith`;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return askForToken();
    mount(main, h('h1', { tabindex: -1 }, 'Something went wrong'), errorBox(e));
  }
  if (moveFocus) main.querySelector<HTMLElement>('h1')?.focus();
}

/** The server wants a bearer token: ask for it once per browser tab (kept in sessionStorage only). */
function askForToken() {
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'current-password', required: true });
  // A token this tab already sent and the server refused is said, not asked for again as if none had been given.
  const refused = takeRejectedToken() !== null;
  stopEvents?.();
  live.textContent = 'token needed';
  live.className = 'live';
  mount(
    main,
    h('h1', { tabindex: -1 }, 'Access token'),
    refused
      ? h(
          'p',
          { class: 'error', role: 'alert', id: 'token-refused' },
          'The server did not accept that token (401). Enter the token it was started with.',
        )
      : null,
    h('p', {}, 'This server requires the token it was started with (--token or SKILLSMITH_TOKEN).'),
    h(
      'form',
      {
        class: 'token-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          setToken(input.value.trim());
          startEvents();
          void refreshStats();
          void route();
        },
      },
      h('label', { for: 'token' }, 'Token'),
      input,
      h('button', { type: 'submit', class: 'primary' }, 'Continue'),
    ),
  );
  input.focus();
}

let stopEvents: (() => void) | null = null;
function startEvents() {
  stopEvents?.();
  let pending: number | undefined;
  stopEvents = followEvents(
    (e: SkillEvent) => {
      const name = typeof e.payload.name === 'string' ? e.payload.name : (e.skillId ?? '');
      if (
        [
          'skill.created',
          'skill.updated',
          'skill.superseded',
          'skill.status_changed',
          'skill.retired',
          'skill.promoted',
          'skill.renamed',
          'skill.edited',
          'skill.reverted',
          'skill.revised',
        ].includes(e.type)
      ) {
        ctx.notify(`${e.type.replace('skill.', 'Skill ').replace('_', ' ')}: ${name}`);
      }
      // Several events often arrive together (a pass, a commit): refresh once.
      clearTimeout(pending);
      pending = window.setTimeout(() => {
        void refreshStats();
        // A refresh that gets no answer (the server stopped after the event) leaves the view as it was: the live
        // badge says offline, and the page's own requests say the rest.
        void refreshView?.().catch(() => {});
      }, 300);
    },
    (on) => {
      live.textContent = on ? 'live' : 'offline';
      live.className = on ? 'live on' : 'live';
    },
  );
}

// The skip link moves focus without touching the hash (the hash is the router's).
document.querySelector('a.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  (main.querySelector<HTMLElement>('h1') ?? main).focus();
});
window.addEventListener('hashchange', () => void route());
startEvents();
void refreshStats();
// On first load focus stays at the top of the page, where the skip link is.
void route(false);
