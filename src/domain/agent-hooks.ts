import { ConfigError } from '../errors/config-error.js';

/**
 * The hooks Skillsmith sets up in a coding agent's settings (`skillsmith hooks install`), and the pure part of
 * putting them in and taking them out: a settings object in, a settings object out, every other key and every other
 * hook kept. Reading and writing the file is the CLI's (src/surfaces/cli/commands/hooks.ts).
 */

export type HookAgent = 'claude-code' | 'gemini';

export const HOOK_AGENTS: readonly HookAgent[] = ['claude-code', 'gemini'];

/** Which Skillsmith command a hook runs: `recall --hook`, `ingest --hook` or `learn --hook`. */
export type HookRole = 'recall' | 'ingest' | 'learn';

/** One hook as a settings file holds it, and as the README shows it. */
export interface HookEntry {
  event: string;
  command: string;
  timeout: number;
}

/** The tools each agent has by its own names (`mcp__*`: any MCP server's tools, as Claude Code names them). */
export const AGENT_TOOLS: Readonly<Record<HookAgent, readonly string[]>> = {
  'claude-code': [
    'Bash',
    'Read',
    'Edit',
    'MultiEdit',
    'Write',
    'Glob',
    'Grep',
    'LS',
    'Task',
    'WebFetch',
    'WebSearch',
    'NotebookEdit',
    'mcp__*',
  ],
  gemini: [
    'run_shell_command',
    'read_file',
    'read_many_files',
    'write_file',
    'replace',
    'glob',
    'search_file_content',
    'list_directory',
    'web_fetch',
    'google_web_search',
    'save_memory',
  ],
};

/**
 * Each agent's hooks: the event, the Skillsmith command and the timeout (Claude Code's in seconds, Gemini CLI's in
 * milliseconds). Claude Code: recall before each prompt, ingest after each reply, learn when the session ends.
 * Gemini CLI does not wait for its SessionEnd, so it learns after each turn.
 */
const AGENT_HOOKS: Readonly<Record<HookAgent, readonly { event: string; role: HookRole; timeout: number }[]>> = {
  'claude-code': [
    { event: 'UserPromptSubmit', role: 'recall', timeout: 10 },
    { event: 'Stop', role: 'ingest', timeout: 30 },
    { event: 'SessionEnd', role: 'learn', timeout: 60 },
  ],
  gemini: [
    { event: 'BeforeAgent', role: 'recall', timeout: 10_000 },
    { event: 'AfterAgent', role: 'learn', timeout: 60_000 },
  ],
};

/**
 * The hooks to install for `agent`: `program` is how the hook starts Skillsmith (`skillsmith`, or a quoted
 * `node /abs/main.js`), `flags` what every hook command carries after its own (` --db /abs/memory.db`, already
 * quoted), `extraTools` tool names the recall hook allows besides the agent's own (`--tools` of the install).
 */
export function agentHooks(
  agent: HookAgent,
  program: string,
  opts: { flags?: string; extraTools?: readonly string[] } = {},
): HookEntry[] {
  const tools = [...new Set([...AGENT_TOOLS[agent], ...(opts.extraTools ?? [])])].join(',');
  return AGENT_HOOKS[agent].map(({ event, role, timeout }) => ({
    event,
    command: `${program} ${role} --hook${role === 'recall' ? ` --tools ${quoted(tools)}` : ''}${opts.flags ?? ''}`,
    timeout,
  }));
}

/** A word in single quotes for a POSIX shell (the README's `--tools '...'`: `*` and `,` stay as they are). */
function quoted(v: string): string {
  return `'${v.replace(/'/g, `'\\''`)}'`;
}

/**
 * The Skillsmith role of a hook command, or null when it is not one of ours: `skillsmith`, `npx skillsmith`, or
 * `node .../dist/surfaces/cli/main.js` (quoted or not), then `recall|ingest|learn --hook`, whatever flags follow
 * (an older form of ours: no `--tools`, another tool list, a `--db`).
 */
export function hookRole(command: string): HookRole | null {
  const m =
    /^\s*(?:npx\s+(?:--yes\s+|-y\s+)?)?(?:(?:\S*\/)?skillsmith|(?:'[^']*'|"[^"]*"|\S+)\s+(?:'[^']*\/surfaces\/cli\/main\.js'|"[^"]*\/surfaces\/cli\/main\.js"|\S*\/surfaces\/cli\/main\.js))\s+(recall|ingest|learn)\s+(?:.*\s)?--hook(?:\s|$)/.exec(
      command,
    );
  return m ? (m[1] as HookRole) : null;
}

export interface HookChange {
  added: HookEntry[];
  replaced: (HookEntry & { previous: { command: string; timeout: unknown } })[];
  unchanged: HookEntry[];
  removed: HookEntry[];
}

/** A settings object with our hooks put in (or taken out), and what changed. `settings` itself is not changed. */
export interface HookPlan extends HookChange {
  settings: Record<string, unknown>;
  /** Whether the settings differ from what came in (nothing to write when not). */
  changed: boolean;
}

type Group = Record<string, unknown> & { hooks: unknown[] };

/**
 * `settings` (a parsed settings file; `where` names it in errors) checked for the shape hooks live in: an object,
 * whose `hooks` (if any) is an object of event names to lists of `{hooks: [...]}` groups. Anything else is refused
 * (ConfigError) rather than guessed at, naming what is wrong where.
 */
function checkedHooks(settings: unknown, where: string): Record<string, Group[]> {
  if (!settings || typeof settings !== 'object' || Array.isArray(settings))
    throw new ConfigError(`${where}: the settings are ${kind(settings)}, not a JSON object`);
  const hooks = (settings as Record<string, unknown>).hooks;
  if (hooks === undefined) return {};
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks))
    throw new ConfigError(`${where}: "hooks" is ${kind(hooks)}, not an object of hook events`);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups))
      throw new ConfigError(`${where}: hooks.${event} is ${kind(groups)}, not a list of hook groups`);
    groups.forEach((g, i) => {
      if (!g || typeof g !== 'object' || Array.isArray(g) || !Array.isArray((g as Group).hooks))
        throw new ConfigError(`${where}: hooks.${event}[${i}] is not a hook group ({"hooks": [...]})`);
    });
  }
  return hooks as Record<string, Group[]>;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Our hook in a group: a command hook whose command is one of ours, of `role`. */
function ours(h: unknown, role?: HookRole): h is Record<string, unknown> & { command: string } {
  if (!h || typeof h !== 'object') return false;
  const command = (h as Record<string, unknown>).command;
  if (typeof command !== 'string') return false;
  const r = hookRole(command);
  return r !== null && (role === undefined || r === role);
}

const clone = <T>(v: T): T => structuredClone(v);

/**
 * `settings` with `entries` in: an entry of ours already under its event (same role) is kept when it is the same,
 * else replaced where it stands (its group and place kept); one not there is added as a group of its own at the end
 * of its event's list. A second hook of ours of the same role under one event is taken out. Every other key, event,
 * group and hook stays as it was.
 */
export function installHooks(settings: unknown, entries: readonly HookEntry[], where: string): HookPlan {
  checkedHooks(settings, where);
  const next = clone(settings) as Record<string, unknown>;
  const hooks = (next.hooks ?? {}) as Record<string, Group[]>;
  const change: HookChange = { added: [], replaced: [], unchanged: [], removed: [] };
  let changed = false;
  const emptied = new Set<Group>();
  for (const entry of entries) {
    const role = hookRole(entry.command);
    const groups = hooks[entry.event] ?? [];
    let found = false;
    for (const group of groups) {
      for (let i = 0; i < group.hooks.length; i++) {
        const h = group.hooks[i];
        if (!ours(h, role ?? undefined)) continue;
        if (found) {
          // A second one of ours for the same role: the agent would run it twice.
          change.removed.push({ event: entry.event, command: h.command, timeout: h.timeout as number });
          group.hooks.splice(i--, 1);
          emptied.add(group);
          changed = true;
          continue;
        }
        found = true;
        if (h.type === 'command' && h.command === entry.command && h.timeout === entry.timeout) {
          change.unchanged.push(entry);
          continue;
        }
        change.replaced.push({ ...entry, previous: { command: h.command, timeout: h.timeout } });
        group.hooks[i] = { ...h, type: 'command', command: entry.command, timeout: entry.timeout };
        changed = true;
      }
    }
    if (!found) {
      hooks[entry.event] = [
        ...groups,
        { hooks: [{ type: 'command', command: entry.command, timeout: entry.timeout }] },
      ];
      change.added.push(entry);
      changed = true;
    }
  }
  if (changed) {
    prune(hooks, emptied);
    next.hooks = hooks;
  }
  return { ...change, settings: changed ? next : clone(settings as Record<string, unknown>), changed };
}

/**
 * `settings` with every hook of ours taken out (any event, any role, older forms too): a group left with no hooks
 * goes, an event left with no groups goes, and `hooks` left empty goes. Everything else stays as it was.
 */
export function uninstallHooks(settings: unknown, where: string): HookPlan {
  const checked = checkedHooks(settings, where);
  const next = clone(settings) as Record<string, unknown>;
  const change: HookChange = { added: [], replaced: [], unchanged: [], removed: [] };
  if (!Object.values(checked).some((groups) => groups.some((g) => g.hooks.some((h) => ours(h)))))
    return { ...change, settings: next, changed: false };
  const hooks = next.hooks as Record<string, Group[]>;
  const emptied = new Set<Group>();
  for (const [event, groups] of Object.entries(hooks))
    for (const group of groups) {
      const kept = group.hooks.filter((h) => {
        if (!ours(h)) return true;
        change.removed.push({ event, command: h.command, timeout: h.timeout as number });
        return false;
      });
      if (kept.length < group.hooks.length) {
        group.hooks = kept;
        emptied.add(group);
      }
    }
  prune(hooks, emptied);
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return { ...change, settings: next, changed: true };
}

/**
 * The groups in `touched` (ours were taken out of them) that are left with no hooks taken out, and an event left with
 * no groups by that taken out too. An empty group or event the person had stays.
 */
function prune(hooks: Record<string, Group[]>, touched: ReadonlySet<Group>): void {
  for (const [event, groups] of Object.entries(hooks)) {
    if (!groups.some((g) => touched.has(g))) continue;
    const kept = groups.filter((g) => !(touched.has(g) && g.hooks.length === 0));
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
}
