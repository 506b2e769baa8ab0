import { api } from '../api.js';
import {
  cssId,
  errorBox,
  outcomeBadge,
  sessionHref,
  sessionMeta,
  skillHref,
  callList,
  type ViewContext,
} from '../components.js';
import { h, mount } from '../dom.js';
import { clipText, date, firstUnits } from '../format.js';
import { renderMarkdown, splitFrontmatter } from '../markdown.js';
import type {
  CompileResult,
  LogIngested,
  LogPreview,
  LogProblem,
  LookAlike,
  Page,
  Session,
  SessionSummary,
  SynthesisDone,
} from '../types.js';
import { lastOffset, pagerLinks, refocus, showUrl } from './skills.js';

/**
 * Stored sessions are learned from by a learning pass, which the server runs when it is asked to (or by itself
 * with `synthesis.auto`): the button asks for one and says what it wrote.
 */
function learnNow(): HTMLElement {
  const out = h('div', { id: 'learn-result', role: 'status' });
  const button = h('button', { type: 'button', id: 'learn-now' }, 'Learn from them now');
  button.addEventListener('click', async () => {
    button.disabled = true;
    mount(out, 'Learning…');
    try {
      const r = await api.post<SynthesisDone>('/api/synthesize', { dryRun: false });
      const written = [...r.created, ...r.updated];
      mount(
        out,
        written.length
          ? h(
              'p',
              { class: 'success' },
              `Learned ${written.length} skill${written.length === 1 ? '' : 's'}: `,
              ...written.flatMap((k, i) => [i ? ', ' : '', h('a', { href: skillHref(k.name) }, k.name)]),
              '.',
            )
          : h(
              'p',
              {},
              r.reinforced.length
                ? `No new skill: these sessions back ${r.reinforced.length} skill${r.reinforced.length === 1 ? '' : 's'} learned before.`
                : `No skill yet: ${r.skipped[0]?.reason ?? 'a skill needs more similar successful sessions'}.`,
            ),
      );
    } catch (e) {
      mount(out, errorBox(e));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    'div',
    { class: 'learn' },
    h(
      'p',
      {},
      'Skills are learned from stored sessions by a learning pass (',
      h('code', {}, 'skillsmith synthesize'),
      ').',
    ),
    button,
    out,
  );
}

const PAGE = 25;
/** The selection outlives paging and re-rendering (a person may pick sessions from several pages). */
const selected = new Set<string>();

const selectionKey = () => [...selected].sort().join('\n');

const ACTION_TEXT: Record<CompileResult['action'], string> = {
  add: 'a new skill would be added',
  update: 'an existing skill would be updated',
  reinforce: 'an existing skill would be reinforced (the sessions it has not learned from yet add to its support)',
  supersede: 'an existing skill would be superseded by this one',
  skip: 'no skill would be written',
};

/** Stored sessions; select some and promote them to a skill: a dry-run preview first, then a commit. */
export async function sessionsView(main: HTMLElement, params: URLSearchParams, ctx: ViewContext): Promise<void> {
  let offset = Number(params.get('offset')) || 0;
  const body = h('tbody');
  const count = h('p', { class: 'lede' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Session pages' });
  const chosen = h('span', { id: 'selected-count', 'aria-live': 'polite' });
  const previewButton = h('button', { type: 'button', class: 'primary', id: 'preview-skill' }, 'Preview skill');
  const clearButton = h('button', { type: 'button' }, 'Clear selection');
  const preview = h('section', { id: 'promotion', 'aria-live': 'polite', 'aria-label': 'Promotion preview' });
  let pageIds: string[] = [];
  const selectPage = h('input', { type: 'checkbox', id: 'select-page' });

  const sync = () => {
    chosen.textContent = `${selected.size} session${selected.size === 1 ? '' : 's'} selected`;
    previewButton.disabled = selected.size === 0;
    clearButton.disabled = selected.size === 0;
    selectPage.checked = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
    // A preview is for one exact selection: changing the selection withdraws its commit button.
    const commit = preview.querySelector<HTMLButtonElement>('#commit-skill');
    if (commit && preview.dataset.selection !== selectionKey()) commit.disabled = true;
  };

  /** Draws the page at `offset`; `push` (a pager button) makes it a history entry, so Back returns. */
  const load = async (push = false) => {
    const page = await api.get<Page<SessionSummary>>(`/api/sessions?limit=${PAGE}&offset=${offset}`);
    // A page past the end (a link from a longer list, sessions forgotten since): the last page.
    const last = lastOffset(page);
    if (offset > last) {
      offset = last;
      return load(push);
    }
    // Gone from the page while the list was on its way (another view opened): nothing to draw, no URL to write.
    if (!body.isConnected) return;
    const focused = document.activeElement?.id;
    pageIds = page.items.map((s) => s.id);
    count.textContent = page.total
      ? `${page.total} stored session${page.total === 1 ? '' : 's'}, newest first. Select the ones that show one procedure, then preview the skill they would make.`
      : 'No sessions stored.';
    mount(
      body,
      page.items.length
        ? page.items.map((s) => row(s, sync))
        : h(
            'tr',
            {},
            h(
              'td',
              { colspan: 6, class: 'empty' },
              'No sessions yet: import a log above, run skillsmith ingest FILE (a log in any format it reads), or have an agent record its runs as it works (POST /api/sessions over REST, or the MCP tools record_tool_call and end_session).',
            ),
          ),
    );
    mount(
      pager,
      pagerLinks(page, 'sessions-page', (o) => {
        offset = o;
        void load(true);
      }),
    );
    sync();
    refocus(focused);
    // The page is in the URL: a reload, Back or a shared link shows the same sessions.
    showUrl(`#/sessions${offset ? `?offset=${offset}` : ''}`, push);
  };

  selectPage.addEventListener('change', () => {
    for (const id of pageIds) {
      if (selectPage.checked) selected.add(id);
      else selected.delete(id);
    }
    for (const box of body.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) box.checked = selectPage.checked;
    sync();
  });
  clearButton.addEventListener('click', () => {
    selected.clear();
    for (const box of body.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) box.checked = false;
    mount(preview);
    sync();
  });
  previewButton.addEventListener('click', () => void promote(preview, [...selected], ctx, sync));

  // Runs of one task worded too differently to be grouped: one click selects a group for the preview above.
  const alike = h('section', { id: 'look-alike', 'aria-label': 'Alike, not yet one skill' });
  const pick = (ids: string[]) => {
    selected.clear();
    for (const id of ids) selected.add(id);
    for (const box of body.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-session]'))
      box.checked = selected.has(box.dataset.session!);
    mount(preview);
    sync();
    previewButton.focus();
  };

  // A log an agent or an app kept (a transcript, a saved chat, a run history): previewed, then stored.
  const logInput = h('input', { type: 'file', id: 'import-log', accept: '.json,.jsonl,application/json' });
  const imported = h('section', { id: 'import', 'aria-live': 'polite', 'aria-label': 'Imported log' });
  logInput.addEventListener('change', () => {
    const file = logInput.files?.[0];
    // Emptied at once, so that choosing the same file again (after a discard, or after fixing it) reads it again.
    logInput.value = '';
    if (file)
      void importLog(imported, file, () => {
        offset = 0;
        void load();
        ctx.changed();
      });
  });

  mount(
    main,
    h('h1', { tabindex: -1 }, 'Sessions'),
    count,
    h(
      'div',
      { class: 'selection-bar', role: 'group', 'aria-label': 'Promote selected sessions' },
      chosen,
      previewButton,
      clearButton,
    ),
    preview,
    alike,
    h(
      'div',
      { class: 'selection-bar', role: 'group', 'aria-label': 'Import a log' },
      h('label', { for: 'import-log' }, 'Import a log (any format skillsmith ingest reads):'),
      logInput,
    ),
    imported,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'sessions' },
        h('caption', { class: 'visually-hidden' }, 'Stored sessions'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h(
              'th',
              { scope: 'col' },
              h(
                'label',
                { class: 'inline' },
                selectPage,
                h('span', { class: 'visually-hidden' }, 'Select every session on this page'),
              ),
            ),
            ['Goal', 'Outcome', 'Calls', 'Tools', 'Started'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    ),
    pager,
  );
  await Promise.all([load(), lookAlikes(alike, pick)]);
}

/** The look-alike groups, each with a button that selects its sessions (nothing when there are none). */
async function lookAlikes(panel: HTMLElement, pick: (ids: string[]) => void) {
  let groups: LookAlike[];
  try {
    groups = await api.get<LookAlike[]>('/api/look-alike');
  } catch (e) {
    groups = [];
    mount(panel, errorBox(e));
  }
  if (groups.length) showLookAlikes(panel, groups, pick);
  // Read and shown (or found empty): what a test or a script waits for.
  panel.dataset.loaded = 'true';
}

function showLookAlikes(panel: HTMLElement, groups: LookAlike[], pick: (ids: string[]) => void) {
  mount(
    panel,
    h('h2', {}, 'Alike, not yet one skill'),
    h(
      'p',
      { class: 'muted' },
      'These sessions ran the same steps, but their requests were worded too far apart to be grouped, so each waits alone. If a group is one task, select it and preview the skill it makes.',
    ),
    h(
      'ul',
      { class: 'look-alike' },
      groups.map((g) => {
        const button = h('button', { type: 'button' }, `Select these ${g.sessions.length} sessions`);
        button.addEventListener('click', () => pick(g.sessions));
        return h(
          'li',
          { 'data-sessions': g.sessions.join(',') },
          h(
            'p',
            {},
            `${g.sessions.length} sessions ran the same steps: `,
            g.steps.map((s, i) => [i ? ', ' : '', h('code', {}, s.command ?? s.tool)]),
          ),
          h(
            'ul',
            {},
            g.sessions.map((id, i) =>
              h('li', {}, h('a', { href: sessionHref(id), dir: 'auto' }, clipText(g.goals[i], 140))),
            ),
          ),
          button,
        );
      }),
    ),
  );
}

function row(s: SessionSummary, sync: () => void): HTMLElement {
  const box = h('input', {
    type: 'checkbox',
    id: `pick-${cssId(s.id)}`,
    checked: selected.has(s.id),
    'data-session': s.id,
  });
  box.addEventListener('change', () => {
    if (box.checked) selected.add(s.id);
    else selected.delete(s.id);
    sync();
  });
  return h(
    'tr',
    { 'data-session': s.id },
    h('td', {}, box, h('label', { for: box.id, class: 'visually-hidden' }, `Select session ${s.id}`)),
    h(
      'td',
      {},
      h('a', { href: sessionHref(s.id), title: s.goal, dir: 'auto' }, clipText(s.goal, 140)),
      h('div', { class: 'muted small' }, s.id),
    ),
    h('td', {}, outcomeBadge(s.outcome)),
    h('td', { class: 'num' }, String(s.callCount)),
    h('td', { class: 'small' }, clipText(s.tools.join(', '), 80)),
    h('td', {}, date(s.startedAt)),
  );
}

/** Dry run, shown for review; the commit button sends the same selection with commit: true. */
async function promote(panel: HTMLElement, sessions: string[], ctx: ViewContext, sync: () => void) {
  mount(panel, h('p', { class: 'muted' }, `Distilling ${sessions.length} session(s)…`));
  panel.dataset.selection = selectionKey();
  let dry: CompileResult;
  try {
    dry = await api.post<CompileResult>('/api/compile', { sessions, commit: false });
  } catch (e) {
    mount(panel, errorBox(e));
    return;
  }
  const commit = h(
    'button',
    { type: 'button', class: 'primary', id: 'commit-skill' },
    dry.action === 'add' ? 'Create this skill' : `Commit (${dry.action})`,
  );
  const cancel = h('button', { type: 'button' }, 'Discard preview');
  cancel.addEventListener('click', () => mount(panel));
  commit.addEventListener('click', async () => {
    commit.disabled = true;
    try {
      const done = await api.post<CompileResult>('/api/compile', { sessions, commit: true });
      if (done.action === 'skip' || !done.skill) {
        mount(panel, errorBox(done.reason ?? 'nothing was written'));
        return;
      }
      mount(
        panel,
        h(
          'div',
          { class: 'success', role: 'status' },
          `Committed: ${done.action} `,
          h('a', { href: skillHref(done.skill.name), id: 'committed-skill' }, done.skill.name),
          ` v${done.skill.version}.`,
        ),
      );
      selected.clear();
      for (const box of document.querySelectorAll<HTMLInputElement>('table.sessions input[type=checkbox]'))
        box.checked = false;
      sync();
      ctx.changed();
      panel.querySelector<HTMLElement>('#committed-skill')?.focus();
    } catch (e) {
      mount(panel, errorBox(e));
    }
  });
  const md = h('div', { class: 'markdown' });
  if (dry.skillMd) md.innerHTML = renderMarkdown(splitFrontmatter(dry.skillMd).body, { headingOffset: 2 });
  mount(
    panel,
    h('h2', { id: 'preview-title', tabindex: -1 }, dry.skill ? `Preview: ${dry.skill.name}` : 'Preview: no skill'),
    h(
      'p',
      {},
      `Dry run, nothing written yet: ${ACTION_TEXT[dry.action]}.`,
      dry.duplicateOf
        ? [' Existing skill: ', h('a', { href: skillHref(dry.duplicateOf.name) }, dry.duplicateOf.name), '.']
        : null,
    ),
    dry.reason ? h('p', { class: dry.action === 'skip' ? 'error-text' : 'muted' }, dry.reason) : null,
    dry.parents.sessions.length
      ? h(
          'p',
          { class: 'muted' },
          `Built on ${dry.parents.sessions.length} of the ${sessions.length} selected session(s) (the successful ones that follow the procedure).`,
        )
      : null,
    dry.leftOut.length
      ? h(
          'ul',
          { class: 'muted', id: 'left-out' },
          dry.leftOut.map((l) => h('li', {}, `Left out ${l.id}: ${l.reason}`)),
        )
      : null,
    dry.skillMd ? h('div', { class: 'preview-md' }, md) : null,
    // Nothing to commit when no skill would be written: the reason above says why, and the preview can be put away.
    h('div', { class: 'actions' }, dry.action === 'skip' ? null : commit, cancel),
  );
  panel.querySelector<HTMLElement>('#preview-title')?.focus();
}

/** Problems or notes of a log, each with its line. */
function logLines(items: LogProblem[], cls: string): HTMLElement | null {
  return items.length
    ? h(
        'ul',
        { class: cls },
        items.map((p) => h('li', {}, `line ${p.line}: ${p.reason}`)),
      )
    : null;
}

/** What storing would do with a session the memory already knows, as its preview says it. */
const STORED_TEXT = {
  grow: 'grows the stored copy',
  present: 'already stored',
  conflict: 'id taken by another',
} as const;

/** A log file read as `ingest --dry-run` reads it; the store button sends the same text to be stored. */
async function importLog(panel: HTMLElement, file: File, stored: () => void) {
  mount(panel, h('p', { class: 'muted' }, `Reading ${file.name}…`));
  const name = encodeURIComponent(file.name);
  let text: string;
  let dry: LogPreview;
  try {
    text = await file.text();
    dry = (await api.log<LogPreview>(`/api/ingest?dryRun=true&name=${name}`, text)).body;
  } catch (e) {
    mount(panel, errorBox(e));
    return;
  }
  const n = dry.sessions.length;
  // What storing would add: sessions the memory does not hold yet, and stored ones this log holds further on.
  const adds = dry.sessions.filter((s) => s.stored !== 'present' && s.stored !== 'conflict').length;
  const present = dry.sessions.filter((s) => s.stored === 'present').length;
  const store = h(
    'button',
    { type: 'button', class: 'primary', id: 'store-log', disabled: adds === 0 },
    adds === 0 && n > 0 ? 'Nothing new to store' : `Store ${adds} session${adds === 1 ? '' : 's'}`,
  );
  const cancel = h('button', { type: 'button' }, 'Discard');
  cancel.addEventListener('click', () => mount(panel));
  store.addEventListener('click', async () => {
    store.disabled = true;
    try {
      const { body } = await api.log<LogIngested>(`/api/ingest?name=${name}`, text);
      mount(
        panel,
        h(
          'div',
          { class: 'success', role: 'status', id: 'log-stored' },
          `Stored ${body.inserted} new session${body.inserted === 1 ? '' : 's'} from ${file.name}${body.grown ? `; ${body.grown} grown (stored before their task ended)` : ''}; ${body.skipped} already present.`,
        ),
        logLines(body.problems, 'error-text'),
        body.inserted || body.grown ? learnNow() : null,
      );
      stored();
    } catch (e) {
      mount(panel, errorBox(e));
    }
  });
  mount(
    panel,
    h('h2', { id: 'import-title', tabindex: -1 }, `Preview: ${file.name}`),
    h(
      'p',
      {},
      `Dry run, nothing stored yet: ${n} session${n === 1 ? '' : 's'} with ${dry.calls} tool call${dry.calls === 1 ? '' : 's'} (${dry.format}).`,
      present
        ? ` ${present === n ? (n === 1 ? 'It is' : 'All of them are') : `${present} of them ${present === 1 ? 'is' : 'are'}`} already stored.`
        : '',
    ),
    n
      ? h(
          'ol',
          { class: 'log-sessions' },
          dry.sessions.map((s) =>
            h(
              'li',
              { 'data-session': s.id },
              h('span', { class: 'goal', dir: 'auto' }, clipText(s.goal, 140)),
              s.stored && s.stored !== 'new' ? h('span', { class: 'badge' }, STORED_TEXT[s.stored]) : null,
              h(
                'div',
                { class: 'muted small' },
                s.tools.join(' > '),
                s.failedCalls ? ` (${s.failedCalls} failed)` : '',
              ),
            ),
          ),
        )
      : null,
    logLines(dry.problems, 'error-text'),
    logLines(dry.notes, 'muted small'),
    h('div', { class: 'actions' }, store, cancel),
  );
  panel.querySelector<HTMLElement>('#import-title')?.focus();
}

/** The characters of a goal the session page shows: a whole request, not a pasted file. */
const GOAL_SHOWN = 4000;

/** A text of any length as a page shows it: up to GOAL_SHOWN characters, then how many more there are. */
function longText(text: string): string {
  return text.length > GOAL_SHOWN
    ? `${firstUnits(text, GOAL_SHOWN)}… (${(text.length - GOAL_SHOWN).toLocaleString('en')} more characters)`
    : text;
}

/** One session with each of its tool calls. */
export async function sessionView(main: HTMLElement, id: string): Promise<void> {
  const s = await api.get<Session>(`/api/sessions/${encodeURIComponent(id)}`);
  mount(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/sessions' }, '← All sessions')),
    h('h1', { tabindex: -1 }, 'Session'),
    h('p', { class: 'muted' }, s.id),
    h(
      'p',
      {
        class: 'lede goal',
        dir: 'auto',
        ...(s.goal.length > GOAL_SHOWN ? { title: `${s.goal.length} characters` } : {}),
      },
      longText(s.goal),
    ),
    sessionMeta(s),
    h('h2', {}, `Tool calls (${s.calls.length})`),
    callList(s),
  );
}
