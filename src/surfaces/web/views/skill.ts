import { api, ApiError, download } from '../api.js';
import { trackChart } from '../chart.js';
import {
  callsDisclosure,
  enabledSwitch,
  errorBox,
  outcomeBadge,
  sessionHref,
  skillHref,
  statusBadge,
  type ViewContext,
} from '../components.js';
import { h, mount } from '../dom.js';
import { date, num, ratio, trialsText } from '../format.js';
import { renderMarkdown, splitFrontmatter } from '../markdown.js';
import type { Explanation, ForgottenSkill, Skill, SkillDiff, SkillEdit } from '../types.js';

/** One skill: its SKILL.md, track record, provenance down to each tool call, versions and supersede chain. */
export async function skillView(
  main: HTMLElement,
  name: string,
  ctx: ViewContext,
  followed: ReadonlySet<string> = new Set(),
): Promise<void> {
  const path = `/api/skills/${encodeURIComponent(name)}`;
  let skill: Skill;
  let ex: Explanation;
  try {
    // The first SHOWN_SOURCES parents only: a skill of a busy memory has hundreds (the rest come on request).
    [skill, ex] = await Promise.all([
      api.get<Skill>(path),
      api.get<Explanation>(`${path}/explain?sessions=${SHOWN_SOURCES}`),
    ]);
  } catch (e) {
    // A bookmark of a skill renamed (or superseded) since: its page now, said so, and the address follows.
    const now = e instanceof ApiError && e.status === 404 ? knownAs(e.details.nowKnownAs) : null;
    if (!now || now.name === name || followed.has(now.name)) throw e;
    ctx.notify(`${name} was ${now.how === 'renamed' ? 'renamed' : 'superseded by'} ${now.name}: showing ${now.name}.`);
    history.replaceState(null, '', skillHref(now.name));
    return skillView(main, now.name, ctx, new Set([...followed, name]));
  }
  const { frontmatter, body } = splitFrontmatter(skill.skillMd ?? '');
  const rendered = h('div', { class: 'markdown' });
  // Safe to insert: renderMarkdown escapes all source text (see markdown.ts and its tests).
  rendered.innerHTML = renderMarkdown(body, { headingOffset: 2 });

  const feedback = (signal: 'up' | 'down') => async () => {
    try {
      const r = await api.post<{ after: Skill }>(`${path}/feedback`, { signal });
      ctx.notify(`Feedback recorded: eta is now ${num(r.after.eta)} (${r.after.status})`);
      ctx.changed();
      await skillView(main, name, ctx);
      // The page is drawn again: the keyboard focus goes back to the button that was pressed.
      main.querySelector<HTMLButtonElement>(`button[data-feedback="${signal}"]`)?.focus();
    } catch (e) {
      ctx.notify(`Feedback failed: ${(e as Error).message}`, 'error');
    }
  };

  const forget = forgetControl(skill, ctx);
  // A learned skill a person can correct: its SKILL.md in a text box (PUT .../SKILL.md), the page drawn again after.
  const redraw = async (focus: string) => {
    ctx.changed();
    await skillView(main, skill.name, ctx);
    main.querySelector<HTMLElement>(focus)?.focus();
  };
  const editable = skill.corpus === 'internal' && !skill.supersededBy && /^ {2}learned-by:/m.test(skill.skillMd ?? '');
  const edit = editable ? editControl(skill, ctx, redraw) : null;
  // An import a person promoted keeps its first version's reason: the page says where it came from.
  const promotedImport = skill.corpus === 'internal' && ex.versions[0]?.reason === 'import';
  mount(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/skills' }, '← All skills')),
    h('h1', { tabindex: -1 }, skill.name),
    h('p', { class: 'lede' }, skill.description),
    h(
      'div',
      { class: 'badges' },
      statusBadge(skill.status),
      h('span', { class: 'badge' }, `v${skill.version}`),
      h('span', { class: 'badge' }, skill.kind),
      h(
        'span',
        { class: 'badge' },
        promotedImport ? 'imported, promoted' : skill.corpus === 'internal' ? 'learned here' : 'imported',
      ),
      skill.supersededBy ? h('span', { class: 'badge' }, 'superseded') : null,
    ),
    skill.corpus === 'external' && !skill.supersededBy ? promoteControl(skill, name, main, ctx) : null,
    // Retired by its trials: why recall no longer serves it, and a button that brings it back on probation.
    skill.corpus === 'internal' && !skill.supersededBy && skill.status === 'retired'
      ? promoteControl(skill, name, main, ctx, ex.standing?.reason ?? 'Retired: recall no longer serves it.')
      : null,
    skill.corpus === 'internal' && !skill.supersededBy && skill.status !== 'retired' && ex.standing?.reason
      ? h('p', { class: 'muted', id: 'standing-note' }, `Not recalled: ${ex.standing.reason}.`)
      : null,
    // Superseded because a tool of it was renamed: which, and by what (the supersede chain below names the skill).
    skill.supersededBy && ex.renamedTools?.length && ex.standing?.reason
      ? h('p', { class: 'muted', id: 'standing-note' }, `Not recalled: ${ex.standing.reason}.`)
      : null,
    promotedImport
      ? h(
          'p',
          { class: 'muted', id: 'promoted-note', tabindex: -1 },
          `Imported, then promoted: recall can serve it, as it serves a skill learned here${skill.enabled ? '' : ', once it is enabled'}.`,
        )
      : null,
    h(
      'div',
      { class: 'actions' },
      enabledSwitch(skill, ctx),
      h('button', { type: 'button', 'data-feedback': 'up', onclick: feedback('up') }, 'Helpful'),
      h('button', { type: 'button', 'data-feedback': 'down', onclick: feedback('down') }, 'Not helpful'),
      h(
        'button',
        {
          type: 'button',
          onclick: () =>
            download(`${path}/SKILL.md`, `${skill.name}.SKILL.md`).catch((e: Error) =>
              ctx.notify(`Export failed: ${e.message}`, 'error'),
            ),
        },
        'Download SKILL.md',
      ),
      edit?.open ?? null,
      skill.corpus === 'internal' && !skill.supersededBy ? renameControl(skill, ctx) : null,
      forget.open,
    ),
    edit?.panel ?? null,
    forget.panel,
    ex.edited ? editedNote(skill, ex.edited, ctx, redraw) : null,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Eta'),
      h('dd', {}, num(skill.eta)),
      h('dt', {}, 'Utility'),
      h('dd', {}, num(skill.utility)),
      h('dt', {}, 'Followers that succeeded'),
      h('dd', {}, ratio(skill.successCount, skill.attemptCount)),
      // Said as the skills table says it, from the same skill.
      h('dt', {}, 'Trials since learned'),
      h('dd', {}, trialsText(skill)),
      h('dt', {}, 'Support'),
      h('dd', {}, `${skill.support} session${skill.support === 1 ? '' : 's'}`),
      h('dt', {}, 'Tools'),
      h(
        'dd',
        {},
        skill.toolSequence.map((t, i) => [i ? ' → ' : '', h('code', {}, t)]),
      ),
      h('dt', {}, 'Created'),
      h('dd', {}, date(skill.createdAt)),
      h('dt', {}, 'Last used'),
      h('dd', {}, date(skill.lastUsedAt)),
    ),
    section(
      'Procedure',
      rendered,
      frontmatter ? h('details', {}, h('summary', {}, 'Frontmatter'), h('pre', {}, frontmatter)) : null,
    ),
    section('Track record', trackChart(ex.track)),
    section('Provenance', provenance(ex, path, ctx)),
    section('Versions', versions(ex, name)),
    ex.supersedeChain.length > 1 ? section('Supersede chain', chain(ex, skill.id)) : null,
  );
}

/**
 * "Edit": the skill's SKILL.md in a text box, saved as a person's edit (PUT .../SKILL.md): a new version whose steps
 * are its procedure, kept by later passes. What the server says of it (a tool no version called, steps that name no
 * tool, what was redacted) is said; a refused text is said with the reason, and the box stays for another try.
 */
function editControl(
  skill: Skill,
  ctx: ViewContext,
  redraw: (focus: string) => Promise<void>,
): { open: HTMLElement; panel: HTMLElement } {
  const text = h('textarea', {
    id: 'edit-skill-md',
    name: 'skillMd',
    rows: '24',
    spellcheck: 'false',
    'aria-describedby': 'edit-hint',
  }) as HTMLTextAreaElement;
  const panel = h(
    'form',
    { class: 'edit-skill', hidden: true },
    h('label', { for: 'edit-skill-md' }, 'SKILL.md'),
    h(
      'p',
      { id: 'edit-hint', class: 'muted' },
      'Your text becomes its next version, kept by later passes. The steps under "## Steps" that say "Call `tool`" are its procedure; the name stays (Rename gives another); secrets are redacted.',
    ),
    text,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Save'),
      h('button', { type: 'button', onclick: () => close() }, 'Cancel'),
    ),
  );
  const open = h('button', { type: 'button', 'aria-expanded': 'false' }, 'Edit');
  const close = () => {
    panel.hidden = true;
    open.setAttribute('aria-expanded', 'false');
    open.focus();
  };
  open.addEventListener('click', () => {
    text.value = skill.skillMd ?? '';
    panel.hidden = false;
    open.setAttribute('aria-expanded', 'true');
    text.focus();
  });
  panel.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const res = await api.putMarkdown<SkillEdit>(
        `/api/skills/${encodeURIComponent(skill.name)}/SKILL.md`,
        text.value,
      );
      if (!res.changed) {
        ctx.notify(
          `${skill.name}: nothing changed (${res.why === 'empty' ? 'the text is empty' : 'the text is as it was'})`,
        );
        return close();
      }
      const notes = [...res.warnings, ...(res.redacted.length ? [`redacted: ${res.redacted.join(', ')}`] : [])];
      ctx.notify(
        `${skill.name} edited (version ${res.skill.version}): recall serves your text${notes.length ? `. ${notes.join('. ')}` : ''}`,
      );
      await redraw('#edited-note');
    } catch (err) {
      ctx.notify(`Could not save ${skill.name}: ${(err as Error).message}`, 'error');
      text.focus();
    }
  });
  return { open, panel };
}

/** A skill a person edited: by whom and when, what its sessions suggest since, and a button that hands it back. */
function editedNote(
  skill: Skill,
  edited: NonNullable<Explanation['edited']>,
  ctx: ViewContext,
  redraw: (focus: string) => Promise<void>,
): HTMLElement {
  const handBack = async () => {
    try {
      const res = await api.post<SkillEdit>(`/api/skills/${encodeURIComponent(skill.name)}/revert`, {});
      ctx.notify(`${skill.name} is the learner's again (version ${res.skill.version})`);
      await redraw('main > h1');
    } catch (err) {
      ctx.notify(`Could not hand ${skill.name} back: ${(err as Error).message}`, 'error');
    }
  };
  return h(
    'div',
    { class: 'edited', id: 'edited-note', tabindex: -1 },
    h('p', {}, `Edited by a person (${edited.by}, ${date(edited.at)}): later passes keep this text.`),
    edited.suggests
      ? h(
          'p',
          { id: 'edited-suggests' },
          'Its sessions now suggest another procedure: ',
          edited.suggests.map((t, i) => [i ? ' → ' : '', h('code', {}, t)]),
        )
      : null,
    h('button', { type: 'button', onclick: handBack }, 'Hand back to the learner'),
  );
}

/**
 * "Rename": a form that gives the skill another name (PATCH with `name`). The new name's page opens once it is
 * stored; a name the server refuses is said with its reason, and the form stays for another try.
 */
function renameControl(skill: Skill, ctx: ViewContext): HTMLElement {
  const input = h('input', {
    id: 'rename-to',
    name: 'name',
    value: skill.name,
    required: true,
    maxlength: '64',
    pattern: '[a-z0-9]+(-[a-z0-9]+)*',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'rename-hint',
  });
  const form = h(
    'form',
    { class: 'rename', hidden: true },
    h('label', { for: 'rename-to' }, 'New name'),
    input,
    h('span', { id: 'rename-hint', class: 'muted' }, 'a-z, 0-9 and "-"; later passes keep it'),
    h('button', { type: 'submit', class: 'primary' }, 'Save name'),
    h('button', { type: 'button', onclick: () => close() }, 'Cancel'),
  );
  const open = h('button', { type: 'button', 'aria-expanded': 'false' }, 'Rename');
  const close = () => {
    form.hidden = true;
    open.setAttribute('aria-expanded', 'false');
    open.focus();
  };
  open.addEventListener('click', () => {
    form.hidden = false;
    open.setAttribute('aria-expanded', 'true');
    input.focus();
    input.select();
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const wanted = input.value.trim();
    if (wanted === skill.name) return close();
    try {
      const renamed = await api.patch<Skill>(`/api/skills/${encodeURIComponent(skill.name)}`, { name: wanted });
      ctx.notify(`${skill.name} is now ${renamed.name} (version ${renamed.version})`);
      ctx.changed();
      location.hash = skillHref(renamed.name);
    } catch (err) {
      ctx.notify(`Could not rename ${skill.name}: ${(err as Error).message}`, 'error');
      input.focus();
    }
  });
  return h('span', { class: 'rename-control' }, open, form);
}

/**
 * An imported skill is never recalled until a person promotes it: the note says so, and its button promotes it
 * (POST .../promote). The page is drawn again, and the focus goes to the note that says it is recallable now.
 */
function promoteControl(
  skill: Skill,
  shownAs: string,
  main: HTMLElement,
  ctx: ViewContext,
  /** Why a retired skill is not recalled (its standing): the button then brings it back on probation. */
  retired: string | null = null,
): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'primary', id: 'promote-skill', 'aria-describedby': 'imported-note' },
    retired ? 'Bring back' : 'Promote',
  );
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const promoted = await api.post<Skill>(`/api/skills/${encodeURIComponent(skill.name)}/promote`, undefined);
      ctx.notify(
        retired
          ? `${promoted.name} is back on probation: recall serves it again, and its trials from now on judge it.`
          : `${promoted.name} promoted: it can now be recalled.`,
      );
      ctx.changed();
      await skillView(main, shownAs, ctx);
      main.querySelector<HTMLElement>(retired ? 'h1' : '#promoted-note')?.focus();
    } catch (e) {
      ctx.notify(`Could not promote ${skill.name}: ${(e as Error).message}`, 'error');
      button.disabled = false;
      button.focus();
    }
  });
  return h(
    'div',
    { class: 'imported' },
    retired
      ? h('p', { class: 'muted', id: 'imported-note' }, `Not recalled: ${retired}.`)
      : h(
          'p',
          { class: 'muted', id: 'imported-note' },
          'Imported: listed and exported, but never recalled until a person promotes it (here, or with ',
          h('code', {}, `skillsmith skills promote ${skill.name}`),
          ').',
        ),
    button,
  );
}

/**
 * "Forget…": asks first, in the page (Cancel, or "Forget <name>"; Escape cancels), then deletes the skill
 * (DELETE, by id: the page may show a superseded skill whose name a live one has) and goes back to the list,
 * saying what was forgotten.
 */
function forgetControl(skill: Skill, ctx: ViewContext): { open: HTMLElement; panel: HTMLElement } {
  const open = h(
    'button',
    { type: 'button', id: 'forget-skill', 'aria-expanded': 'false', 'aria-controls': 'forget-confirm' },
    'Forget…',
  );
  const cancel = h('button', { type: 'button', id: 'forget-cancel' }, 'Cancel');
  const confirm = h('button', { type: 'button', class: 'danger', id: 'forget-yes' }, `Forget ${skill.name}`);
  const panel = h(
    'div',
    { class: 'confirm', id: 'forget-confirm', role: 'group', 'aria-labelledby': 'forget-question', hidden: true },
    h('p', { id: 'forget-question' }, h('strong', {}, `Forget ${skill.name}?`)),
    h(
      'p',
      {},
      'Its SKILL.md versions, provenance, track record and vectors are deleted, and it is never recalled again; an audit record keeps its id, name and version. This cannot be undone.',
    ),
    h('div', { class: 'actions' }, confirm, cancel),
  );
  const close = () => {
    panel.hidden = true;
    open.setAttribute('aria-expanded', 'false');
    open.focus();
  };
  open.addEventListener('click', () => {
    panel.hidden = false;
    open.setAttribute('aria-expanded', 'true');
    // The safe choice has the focus: an Enter pressed on from habit keeps the skill.
    cancel.focus();
  });
  cancel.addEventListener('click', close);
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') close();
  });
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    try {
      const { forgotten } = await api.delete<ForgottenSkill>(`/api/skills/${encodeURIComponent(skill.id)}`);
      ctx.notify(`Forgot ${forgotten.name}: it is no longer stored, and never recalled again.`);
      ctx.changed();
      // The list opens, and the router moves the focus to its heading.
      location.hash = '#/skills';
    } catch (e) {
      ctx.notify(`Could not forget ${skill.name}: ${(e as Error).message}`, 'error');
      confirm.disabled = false;
      confirm.focus();
    }
  });
  return { open, panel };
}

/** The `nowKnownAs` of a skill's 404, when the answer has one. */
function knownAs(v: unknown): { name: string; how: 'renamed' | 'superseded' } | null {
  if (!v || typeof v !== 'object') return null;
  const { name, how } = v as { name?: unknown; how?: unknown };
  return typeof name === 'string' && (how === 'renamed' || how === 'superseded') ? { name, how } : null;
}

function section(title: string, ...content: (Node | null)[]): HTMLElement {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

/** Source sessions listed before a "Show all" button: a skill of a busy memory has hundreds. */
const SHOWN_SOURCES = 10;

function provenance(ex: Explanation, path: string, ctx: ViewContext): HTMLElement {
  const sessions = ex.parents.sessions;
  const total = ex.parents.sessionCount;
  const item = (s: Explanation['parents']['sessions'][number]) =>
    h(
      'li',
      { class: 'source', 'data-session': s.id },
      h(
        'div',
        {},
        h('a', { href: sessionHref(s.id), class: 'session-id' }, s.id),
        ' ',
        outcomeBadge(s.outcome),
        h('span', { class: 'muted' }, ` since v${s.addedInVersion}`),
      ),
      h('p', { class: 'goal', dir: 'auto' }, s.goal),
      h(
        'p',
        { class: 'muted' },
        s.tools.map((t, i) => [i ? ', ' : '', h('code', {}, t)]),
      ),
      callsDisclosure(s.id, s.calls),
    );
  const list = sessions.length
    ? h('ul', { class: 'sources', 'aria-label': 'Source sessions' }, sessions.map(item))
    : null;
  const more =
    list && total > sessions.length
      ? h(
          'button',
          {
            type: 'button',
            class: 'more-sources',
            onclick: async () => {
              try {
                const all = await api.get<Explanation>(`${path}/explain`);
                list.append(...all.parents.sessions.slice(sessions.length).map(item));
                more?.remove();
              } catch (e) {
                ctx.notify(`Loading the source sessions failed: ${(e as Error).message}`, 'error');
              }
            },
          },
          `Show all ${total} source sessions`,
        )
      : null;
  return h(
    'div',
    {},
    h(
      'p',
      {},
      total
        ? `Learned from ${total} source session${total === 1 ? '' : 's'}${more ? ` (the first ${sessions.length} below)` : ''}:`
        : 'No source sessions (compiled from facts or imported).',
    ),
    list,
    more,
    revokedNote(ex.parents),
    ex.parents.facts.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Facts'),
          h(
            'ul',
            {},
            ex.parents.facts.map((f) => h('li', {}, f.text)),
          ),
        )
      : null,
    ex.parents.missing.length ? h('p', { class: 'muted' }, `No longer stored: ${ex.parents.missing.join(', ')}`) : null,
  );
}

/**
 * Sources the user reported failed after the skill was learned from them (the revise stage took them out): how many,
 * which (each a link to its session), and that they count no more. Null when there are none.
 */
function revokedNote(parents: Explanation['parents']): HTMLElement | null {
  const n = parents.revoked;
  if (n === 0) return null;
  const ids = (parents.revokedSessions ?? []).slice(0, n);
  const unnamed = n - ids.length;
  return h(
    'p',
    { id: 'revoked-sources' },
    `${n} of the sessions it was learned from ${n === 1 ? 'was' : 'were'} later reported failed`,
    ids.length ? ': ' : '',
    ids.map((id, i) => [i ? ', ' : '', h('a', { href: sessionHref(id), class: 'session-id' }, id)]),
    unnamed && ids.length ? ` and ${unnamed} more` : '',
    `; ${n === 1 ? 'it no longer counts' : 'they no longer count'}.`,
  );
}

function versions(ex: Explanation, name: string): HTMLElement {
  const body = h('tbody');
  ex.versions.forEach((v, i) => {
    const prev = ex.versions[i - 1];
    const changes = h('td', {});
    const row: HTMLElement = h(
      'tr',
      { 'data-version': v.version },
      h('td', {}, v.version),
      h('td', {}, v.sameProcedure ? `${v.reason} (same procedure)` : v.reason),
      h('td', {}, date(v.createdAt)),
      h('td', {}, v.toolSequence.join(' → ')),
      changes,
    );
    changes.append(prev ? changesButton(name, prev.version, v.version, row) : '—');
    body.append(row);
  });
  return h(
    'table',
    { class: 'versions' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Version'),
        h('th', { scope: 'col' }, 'Why'),
        h('th', { scope: 'col' }, 'When'),
        h('th', { scope: 'col' }, 'Tools'),
        h('th', { scope: 'col' }, 'Changes'),
      ),
    ),
    body,
  );
}

/**
 * "Show changes": what the SKILL.md of version `to` changed from `from`, as diff -u shows it, in a row under the
 * version's own, fetched on first open.
 */
function changesButton(name: string, from: string, to: string, row: HTMLElement): HTMLElement {
  const cell = h('td', { colspan: '5' });
  const panel = h('tr', { class: 'changes', hidden: true }, cell);
  const button = h('button', { type: 'button', class: 'link-button', 'aria-expanded': 'false' }, 'Show changes');
  let loaded = false;
  button.addEventListener('click', async () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    if (!panel.isConnected) row.after(panel);
    if (open && !loaded) {
      cell.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      try {
        const query = new URLSearchParams({ from, to });
        const d = await api.get<SkillDiff>(`/api/skills/${encodeURIComponent(name)}/diff?${query}`);
        cell.replaceChildren(diffView(d));
        loaded = true;
      } catch (e) {
        cell.replaceChildren(errorBox(e));
      }
    }
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? 'Hide changes' : 'Show changes';
  });
  return button;
}

/** The hunks, each line marked added, removed or kept; untrusted text, so only ever text nodes. */
function diffView(d: SkillDiff): HTMLElement {
  if (!d.from || d.hunks.length === 0) return h('p', { class: 'muted' }, 'The same SKILL.md.');
  return h(
    'pre',
    { class: 'diff', 'aria-label': `Changes from ${d.from.version} to ${d.to.version}` },
    d.hunks.flatMap((hunk) => [
      h('span', { class: 'hunk' }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`),
      ...hunk.lines.map((l) =>
        h('span', { class: l.op === '+' ? 'added' : l.op === '-' ? 'removed' : 'kept' }, `${l.op}${l.text}\n`),
      ),
    ]),
  );
}

function chain(ex: Explanation, currentId: string): HTMLElement {
  return h(
    'ol',
    { class: 'chain' },
    ex.supersedeChain.map((c) =>
      h(
        'li',
        {},
        c.id === currentId
          ? h('strong', { 'aria-current': 'page' }, `${c.name} v${c.version}`)
          : h('a', { href: skillHref(c.id) }, `${c.name} v${c.version}`),
        ` (${c.status})`,
      ),
    ),
  );
}
