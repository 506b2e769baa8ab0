import { api, download } from '../api.js';
import { enabledSwitch, skillHref, statusBadge, type ViewContext } from '../components.js';
import { h, mount } from '../dom.js';
import { ago, date, num, ratio, trialsText } from '../format.js';
import type { Page, SkillSummary, Stats } from '../types.js';

const PAGE = 50;

/**
 * The skill catalogue: count, status, eta, track record (the followers it was learned from, and its trials since),
 * last use and the enabled switch of each skill.
 */
export async function skillsView(
  main: HTMLElement,
  params: URLSearchParams,
  ctx: ViewContext,
): Promise<{ refresh(): Promise<void> }> {
  const state = {
    q: params.get('q') ?? '',
    status: params.get('status') ?? '',
    all: params.get('all') === '1',
    offset: Number(params.get('offset')) || 0,
  };
  const count = h('p', { class: 'lede', id: 'skills-count' });
  const body = h('tbody');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Skill pages' });

  /** Draws the page at state.offset; `push` (a pager button) makes it a history entry, so Back returns. */
  const load = async (push = false) => {
    // A list needs no source-session ids: their count comes instead (a busy memory has hundreds a skill).
    const query = new URLSearchParams({
      limit: String(PAGE),
      offset: String(state.offset),
      sort: 'name',
      summary: 'true',
    });
    if (state.q) query.set('q', state.q);
    if (state.status) query.set('status', state.status);
    if (state.all) query.set('all', 'true');
    const page = await api.get<Page<SkillSummary>>(`/api/skills?${query}`);
    // A page past the end (a link from a longer list, the last skill of the last page forgotten): the last page.
    const last = lastOffset(page);
    if (state.offset > last) {
      state.offset = last;
      return load(push);
    }
    // Gone from the page while the list was on its way (another view opened): nothing to draw, no URL to write.
    if (!body.isConnected) return;
    const focused = document.activeElement?.id;
    const filtered = !!(state.q || state.status);
    // An empty catalogue says what a skill needs, as this memory is configured (asked for only then).
    const needed = page.items.length || filtered ? null : (await api.get<Stats>('/api/stats')).synthesis.minOccurrences;
    count.textContent = `${page.total} skill${page.total === 1 ? '' : 's'}${state.q || state.status ? ' match' : state.all ? ' (superseded included)' : ' live'}`;
    mount(
      body,
      page.items.length
        ? page.items.map((s) => row(s, ctx))
        : h(
            'tr',
            {},
            h(
              'td',
              { colspan: 8, class: 'empty' },
              filtered
                ? 'No skill matches this search.'
                : `No skills yet: a skill needs at least ${needed} similar successful sessions (synthesis.minOccurrences) and a synthesis pass after them.`,
            ),
          ),
    );
    mount(
      pager,
      pagerLinks(page, 'skills-page', (offset) => {
        state.offset = offset;
        void load(true);
      }),
    );
    refocus(focused);
    // The filters and the page are in the URL: a reload, Back or a shared link shows the same list.
    const shown = new URLSearchParams();
    if (state.q) shown.set('q', state.q);
    if (state.status) shown.set('status', state.status);
    if (state.all) shown.set('all', '1');
    if (state.offset) shown.set('offset', String(state.offset));
    showUrl(`#/skills${shown.size ? `?${shown}` : ''}`, push);
  };

  let timer: number | undefined;
  const search = h('input', {
    type: 'search',
    id: 'skill-filter',
    value: state.q,
    placeholder: 'name or description',
    autocomplete: 'off',
  });
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      state.q = search.value.trim();
      state.offset = 0;
      void load();
    }, 200);
  });
  const status = h(
    'select',
    { id: 'skill-status' },
    ['', 'probationary', 'active', 'retired'].map((v) =>
      h('option', { value: v, selected: v === state.status }, v || 'any status'),
    ),
  );
  status.addEventListener('change', () => {
    state.status = status.value;
    state.offset = 0;
    void load();
  });
  const all = h('input', { type: 'checkbox', id: 'skill-all', checked: state.all });
  all.addEventListener('change', () => {
    state.all = all.checked;
    state.offset = 0;
    void load();
  });
  const exportButton = h('button', { type: 'button' }, 'Export all as zip');
  exportButton.addEventListener('click', () =>
    download('/api/skills.zip', 'skills.zip').catch((e: Error) => ctx.notify(`Export failed: ${e.message}`, 'error')),
  );

  mount(
    main,
    h('h1', { tabindex: -1 }, 'Skills'),
    count,
    h(
      'form',
      { class: 'toolbar', role: 'search', 'aria-label': 'Filter skills', onsubmit: (e: Event) => e.preventDefault() },
      h('label', { for: 'skill-filter' }, 'Filter'),
      search,
      h('label', { for: 'skill-status' }, 'Status'),
      status,
      h('label', { class: 'inline' }, all, ' Include superseded'),
      h('span', { class: 'spacer' }),
      exportButton,
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'skills' },
        h('caption', { class: 'visually-hidden' }, 'Learned skills'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Skill',
              'Status',
              'Eta',
              'Followers that succeeded',
              'Trials since learned',
              'Support',
              'Last used',
              'Enabled',
            ].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    ),
    pager,
  );
  await load();
  return { refresh: load };
}

function row(s: SkillSummary, ctx: ViewContext): HTMLElement {
  return h(
    'tr',
    { 'data-skill': s.name, class: s.enabled ? '' : 'disabled' },
    h(
      'td',
      {},
      h('a', { href: skillHref(s.name), id: `link-${s.name}`, class: 'skill-name' }, s.name),
      s.corpus === 'external'
        ? h(
            'span',
            {
              class: 'badge',
              title: 'never recalled until promoted: the Promote button on its page, or skillsmith skills promote NAME',
            },
            'imported, not recalled',
          )
        : null,
      s.supersededBy ? h('span', { class: 'badge' }, 'superseded') : null,
      h('div', { class: 'desc' }, s.description),
    ),
    h('td', {}, statusBadge(s.status)),
    h('td', { class: 'num' }, h('meter', { min: 0, max: 1, value: s.eta, 'aria-hidden': 'true' }), ' ', num(s.eta)),
    h('td', { class: 'num' }, ratio(s.successCount, s.attemptCount)),
    h('td', { class: 'num' }, trialsText(s)),
    h('td', { class: 'num' }, String(s.support)),
    h('td', { title: date(s.lastUsedAt) }, ago(s.lastUsedAt)),
    h('td', {}, enabledSwitch(s, ctx)),
  );
}

/** Previous / next buttons for a page of results (ids `<id>-prev` and `<id>-next`, so the focus can return). */
export function pagerLinks(page: Page<unknown>, id: string, go: (offset: number) => void): Node[] {
  if (page.total <= page.limit) return [];
  const prev = h('button', { type: 'button', id: `${id}-prev`, disabled: page.offset === 0 }, '← Previous');
  const next = h(
    'button',
    { type: 'button', id: `${id}-next`, disabled: page.offset + page.limit >= page.total },
    'Next →',
  );
  prev.addEventListener('click', () => go(Math.max(0, page.offset - page.limit)));
  next.addEventListener('click', () => go(page.offset + page.limit));
  return [
    prev,
    h('span', {}, ` ${page.offset + 1}–${Math.min(page.total, page.offset + page.limit)} of ${page.total} `),
    next,
  ];
}

/** The offset of the last page of a list (0 for an empty one). */
export function lastOffset(page: Page<unknown>): number {
  return page.total ? Math.floor((page.total - 1) / page.limit) * page.limit : 0;
}

/**
 * Puts the focus back on the element with this id once a list is drawn again. A pager button that is disabled now
 * (Next on the last page) hands it to the other one: a disabled button takes no focus, and it would fall to the page.
 */
export function refocus(id: string | undefined) {
  if (!id) return;
  const el = document.getElementById(id);
  if (el instanceof HTMLButtonElement && el.disabled)
    el.parentElement?.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
  else el?.focus();
}

/**
 * Writes a list's state into the URL without drawing the view again (no hashchange): a new history entry for a
 * page turned, so Back turns it back; the same entry for everything else (a filter typed, a reload).
 */
export function showUrl(hash: string, push: boolean) {
  if (location.hash === hash) return;
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}
