import { api, ApiError } from './api.js';
import { h } from './dom.js';
import { clipText, date } from './format.js';
import type { Session, Skill, ToolCall } from './types.js';

/** What every view gets from the shell. */
export interface ViewContext {
  /** Shows a short message in the polite live region. */
  notify(message: string, kind?: 'info' | 'error'): void;
  /** Called by views after a change, so the header counts stay right. */
  changed(): void;
}

export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `badge status-${status}` }, status);
}

export function outcomeBadge(outcome: string): HTMLElement {
  return h('span', { class: `badge outcome-${outcome}` }, outcome);
}

export const skillHref = (name: string) => `#/skills/${encodeURIComponent(name)}`;
export const sessionHref = (id: string) => `#/sessions/${encodeURIComponent(id)}`;

/** An on/off switch for a skill's `enabled` flag: PATCHes the skill, puts the box back when that fails. */
export function enabledSwitch(
  skill: Pick<Skill, 'name' | 'enabled'>,
  ctx: ViewContext,
  onChange?: (s: Skill) => void,
): HTMLElement {
  const box = h('input', { type: 'checkbox', role: 'switch', id: `enabled-${skill.name}`, checked: skill.enabled });
  const text = h('span', { class: 'switch-text' }, skill.enabled ? 'On' : 'Off');
  let busy = false;
  box.addEventListener('change', async () => {
    const wanted = box.checked;
    // A change while the last one is on its way is put back. The box is not disabled meanwhile: that would take
    // the keyboard focus off it, and the next Space would scroll the page instead of undoing the change.
    if (busy) {
      box.checked = !wanted;
      return;
    }
    busy = true;
    box.setAttribute('aria-busy', 'true');
    try {
      const updated = await api.patch<Skill>(`/api/skills/${encodeURIComponent(skill.name)}`, { enabled: wanted });
      text.textContent = updated.enabled ? 'On' : 'Off';
      ctx.notify(
        `${updated.name} ${updated.enabled ? 'enabled: it can be recalled' : 'disabled: it will not be recalled'}`,
      );
      ctx.changed();
      onChange?.(updated);
    } catch (e) {
      box.checked = !wanted;
      ctx.notify(`Could not change ${skill.name}: ${(e as Error).message}`, 'error');
    } finally {
      busy = false;
      box.removeAttribute('aria-busy');
    }
  });
  return h(
    'label',
    { class: 'switch', title: `Allow ${skill.name} in recall` },
    box,
    h('span', { class: 'visually-hidden' }, `Enabled: ${skill.name}`),
    text,
  );
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** One tool call: the tool, whether it worked, its arguments and its (capped) result. */
export function callItem(call: ToolCall): HTMLElement {
  const result = call.result ?? '';
  return h(
    'li',
    { class: `call ${call.ok ? 'ok' : 'failed'}` },
    h(
      'div',
      { class: 'call-head' },
      h('code', { class: 'tool' }, call.tool),
      ' ',
      h('span', { class: `badge ${call.ok ? 'outcome-success' : 'outcome-failure'}` }, call.ok ? 'ok' : 'failed'),
      call.durationMs != null ? h('span', { class: 'muted' }, ` ${call.durationMs} ms`) : null,
    ),
    Object.keys(call.args ?? {}).length
      ? h('details', {}, h('summary', {}, 'Arguments'), h('pre', {}, json(call.args)))
      : h('p', { class: 'muted' }, 'No arguments'),
    call.error ? h('p', { class: 'error-text' }, `Error: ${call.error}`) : null,
    result
      ? h('details', {}, h('summary', {}, `Result: ${clipText(result, 90)}`), h('pre', { dir: 'auto' }, result))
      : null,
  );
}

export function callList(session: Session): HTMLElement {
  return session.calls.length
    ? h('ol', { class: 'calls' }, session.calls.map(callItem))
    : h('p', { class: 'muted' }, 'This session has no tool calls.');
}

/** A button that loads a session's tool calls under itself the first time, then shows and hides them. */
export function callsDisclosure(id: string, count: number): HTMLElement {
  const panel = h('div', { class: 'calls-panel', id: `calls-${cssId(id)}`, hidden: true });
  const button = h(
    'button',
    { type: 'button', class: 'link-button', 'aria-expanded': 'false', 'aria-controls': panel.id },
    `Show ${count} tool call${count === 1 ? '' : 's'}`,
  );
  let loaded = false;
  button.addEventListener('click', async () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    if (open && !loaded) {
      panel.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      try {
        panel.replaceChildren(callList(await api.get<Session>(`/api/sessions/${encodeURIComponent(id)}`)));
        loaded = true;
      } catch (e) {
        panel.replaceChildren(errorBox(e));
      }
    }
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = `${open ? 'Hide' : 'Show'} ${count} tool call${count === 1 ? '' : 's'}`;
  });
  return h('div', { class: 'disclosure' }, button, panel);
}

export function errorBox(e: unknown): HTMLElement {
  const msg = e instanceof ApiError ? `${e.message} (HTTP ${e.status})` : String((e as Error)?.message ?? e);
  return h('div', { class: 'error', role: 'alert' }, msg);
}

export function sessionMeta(
  s: Pick<
    Session,
    'outcome' | 'outcomeSource' | 'source' | 'agentId' | 'startedAt' | 'endedAt' | 'reward' | 'callCount'
  >,
): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Outcome'),
    h(
      'dd',
      {},
      outcomeBadge(s.outcome),
      s.outcomeSource === 'judged' ? ' judged' : '',
      s.reward != null ? ` reward ${s.reward}` : '',
    ),
    h('dt', {}, 'Tool calls'),
    h('dd', {}, String(s.callCount)),
    h('dt', {}, 'Source'),
    h('dd', {}, s.source ?? '—'),
    h('dt', {}, 'Agent'),
    h('dd', {}, s.agentId ?? '—'),
    h('dt', {}, 'Started'),
    h('dd', {}, date(s.startedAt)),
    h('dt', {}, 'Ended'),
    // A log may give an outcome without a time; a session with neither is still open (or its log never said).
    h('dd', {}, s.endedAt ? date(s.endedAt) : s.outcome === 'unknown' ? 'not ended' : 'time not recorded'),
  );
}

/** A string usable inside an id attribute (session ids hold slashes and colons). */
export function cssId(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}
