import type { Memory } from '../../../app/memory.js';
import type { Session } from '../../../domain/types.js';
import { escapeControl } from '../../../domain/untrusted-text.js';
import { outcomeSourceOf, SESSION_PAGE, sessionJson, sessionSummary } from '../../shapes.js';
import { type Command, MEMORY_FLAGS, type Subcommand, withSubcommands } from '../command.js';
import type { Flags } from '../options.js';
import { memoryFlagsText } from '../command-support.js';
import { lookAlikeLines, oneLine, out, printJson, writeErr } from '../output.js';
import { nearestName } from '../../../support/nearest-name.js';
import { NotFoundError } from '../../../errors/not-found-error.js';
import { retentionCutoff } from '../../../domain/retention.js';

/** Sessions a page of `sessions list` holds unless --limit says otherwise, and the most it may hold (as REST's). */
const DEFAULT_LIMIT = SESSION_PAGE.size;
const MAX_LIMIT = SESSION_PAGE.max;
/** Characters of a call's arguments and result that `sessions show` prints (--json gives them whole). */
const SHOWN_CHARS = 200;

/** Each subcommand: the flags it reads (any other is refused before the memory opens) and its help lines. */
const SUBCOMMANDS = [
  {
    name: 'list',
    flags: [...MEMORY_FLAGS, 'limit', 'offset', 'json'],
    help: `  sessions list [--limit N] [--offset N]
                              stored sessions, newest first (${DEFAULT_LIMIT} a page): outcome, calls, goal`,
  },
  {
    name: 'show',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  sessions show ID            one stored session: goal, outcome and each tool call with its result`,
  },
  {
    name: 'forget',
    flags: [...MEMORY_FLAGS, 'older-than', 'before', 'dry-run', 'json'],
    help: `  sessions forget ID...       delete sessions for good: goal, calls, results; skills learned from them keep a
                              forgotten-parent marker (an audit record names each by an opaque reference)
  sessions forget --older-than AGE | --before DATE [--dry-run]
                              every session that ended more than AGE ago (36h, 90d, 12w) or before DATE
                              (2026-09-01, or an ISO time); one still open counts from its last call, else
                              its start; sessions whose time reads as no date are kept and counted;
                              --dry-run lists them and forgets nothing (capture.retentionDays does this
                              after every pass; REST: POST /api/sessions/forget)`,
  },
  {
    name: 'alike',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  sessions alike              sessions that ran the same steps but were asked for in words too far apart to
                              group, each too few to learn from alone, and the compile command that learns
                              them as one skill`,
  },
] as const satisfies readonly Subcommand[];

/** `skillsmith sessions list|show|forget|alike`: the stored sessions, read a page or one at a time, or forgotten. */
export const command: Command = {
  name: 'sessions',
  ...withSubcommands(SUBCOMMANDS),
  opens: 'memory',
  // Listing and reading a session read; forgetting one needs it stored.
  ifMissing: ([sub]) => (sub === 'forget' ? 'fail' : 'empty'),
  usage: ([sub, ...rest], flags) => {
    switch (sub) {
      case 'list':
        if (rest.length) return 'usage: skillsmith sessions list [--limit N] [--offset N]';
        return pageError(flags);
      case 'show':
        return rest.length === 1 ? null : 'usage: skillsmith sessions show ID';
      case 'forget':
        return forgetUsage(rest, flags);
      case 'alike':
        return rest.length ? 'usage: skillsmith sessions alike' : null;
      default: {
        const guess =
          sub === undefined
            ? undefined
            : nearestName(
                sub,
                SUBCOMMANDS.map((s) => s.name),
              );
        const what =
          sub === undefined
            ? 'sessions needs a subcommand'
            : `unknown sessions subcommand "${sub}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
        return `${what}: list, show, forget or alike`;
      }
    }
  },
  async run([sub, ...rest], { flags, memory: open }) {
    const memory = await open();
    if (sub === 'list') return list(memory, flags);
    if (sub === 'show') return show(memory, rest[0]!, flags);
    if (sub === 'alike') return alike(memory, flags);
    // usage() refused a cutoff it cannot read: one here is a date.
    const before = cutoff(flags);
    return before instanceof Date ? forgetOlder(memory, before, flags) : forget(memory, rest, flags);
  },
};

/** What is wrong with a `sessions forget` command line: IDs, or one of --older-than / --before, never both. */
function forgetUsage(ids: string[], flags: Flags): string | null {
  const byAge = flags['older-than'] !== undefined || flags.before !== undefined;
  if (!byAge) {
    if (flags['dry-run']) return '--dry-run lists what --older-than or --before would forget: give one of them';
    return ids.length ? null : 'usage: skillsmith sessions forget ID... | --older-than AGE | --before DATE';
  }
  if (ids.length) return 'sessions forget takes IDs or --older-than / --before, not both';
  if (flags['older-than'] !== undefined && flags.before !== undefined) return 'give --older-than or --before, not both';
  const when = cutoff(flags);
  return typeof when === 'string' ? when : null;
}

/** The time --older-than or --before names (sessions before it are forgotten), what is wrong with it, or null. */
function cutoff(flags: Flags, now = Date.now()): Date | string | null {
  return retentionCutoff({ olderThan: flags['older-than'], before: flags.before }, now, {
    olderThan: '--older-than',
    before: '--before',
  });
}

async function forgetOlder(memory: Memory, before: Date, flags: Flags): Promise<number> {
  const r = await memory.sessions.forgetBefore(before, { actor: 'cli', dryRun: !!flags['dry-run'] });
  if (flags.json) {
    printJson(r);
    return 0;
  }
  const n = r.forgotten.length;
  const sessions = (k: number) => `${k} session${k === 1 ? '' : 's'}`;
  out(
    r.dryRun
      ? `${sessions(n)} ended (or, still open, last active) before ${r.before}: would be forgotten (dry run, nothing changed)`
      : `${sessions(n)} ended (or, still open, last active) before ${r.before}: forgotten`,
  );
  for (const f of r.forgotten)
    out(
      `  ${escapeControl(f.id)}  ${f.at}${f.calls === null ? '' : `  ${f.calls} calls`}${f.skills.length ? `; ${f.skills.join(', ')} keep a forgotten-parent marker` : ''}`,
    );
  if (r.undated.length)
    out(`${sessions(r.undated.length)} kept: ${r.undated.length === 1 ? 'its' : 'their'} stored time reads as no date`);
  return 0;
}

/** --limit and --offset as whole numbers in range, or what is wrong with them. */
function pageError(flags: Flags): string | null {
  const { limit, offset } = flags;
  if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT))
    return `--limit must be a whole number from 1 to ${MAX_LIMIT}, not "${limit}"`;
  if (offset !== undefined && !/^\d+$/.test(offset)) return `--offset must be a whole number, not "${offset}"`;
  return null;
}

async function list(memory: Memory, flags: Flags): Promise<number> {
  const limit = flags.limit === undefined ? DEFAULT_LIMIT : Number(flags.limit);
  const offset = flags.offset === undefined ? 0 : Number(flags.offset);
  const [total, items] = await Promise.all([memory.sessions.count(), memory.sessions.list({ limit, offset })]);
  // The REST list's page, so a script reads both alike.
  if (flags.json) {
    printJson({ total, limit, offset, items: items.map(sessionSummary) });
    return 0;
  }
  if (total === 0) {
    out('No sessions stored yet: skillsmith ingest FILE (or learn FILE) stores some.');
    return 0;
  }
  if (items.length === 0) {
    out(`${total} sessions stored; none from --offset ${offset} on.`);
    return 0;
  }
  const last = offset + items.length;
  out(
    `${total} session${total === 1 ? '' : 's'} stored, newest first; ${offset + 1}-${last} below${last < total ? ` (--offset ${last} for the next ${Math.min(limit, total - last)})` : ''}:`,
  );
  for (const s of items) out(`  ${s.id} [${outcomeText(s)}, ${callCount(s)}] ${oneLine(s.goal, 100)}`);
  return 0;
}

async function alike(memory: Memory, flags: Flags): Promise<number> {
  const groups = await memory.synthesis.lookAlike();
  if (flags.json) {
    printJson(groups);
    return 0;
  }
  if (groups.length === 0) {
    out(
      'No sessions wait alone that ran the same steps as others (as the last synthesis pass left them): each kind of ' +
        'task is learned, or waits for more runs of its own.',
    );
    return 0;
  }
  for (const line of lookAlikeLines({ lookAlike: groups }, memoryFlagsText(flags)).slice(1)) out(line);
  return 0;
}

async function show(memory: Memory, id: string, flags: Flags): Promise<number> {
  const session = await memory.sessions.get(memory.sessions.key(id));
  if (!session) throw new NotFoundError(`no session "${id}" (sessions list shows the stored ones)`);
  const recalled = await memory.sessions.recalled(session.id);
  if (flags.json) {
    printJson(sessionJson(session, recalled));
    return 0;
  }
  const s = session;
  out(`session ${s.id}`);
  out(`goal: ${oneLine(s.goal)}`);
  if (s.cue) out(`cue: ${oneLine(s.cue)}`);
  out(
    [
      `outcome: ${outcomeText(s)}${s.reward == null ? '' : ` (reward ${s.reward})`}`,
      s.agentId ? `agent ${s.agentId}` : '',
      s.source ? `source ${s.source}` : '',
      s.startedAt ? `started ${s.startedAt}` : '',
      s.endedAt ? `ended ${s.endedAt}` : '',
    ]
      .filter(Boolean)
      .join(', '),
  );
  out(`${callCount(s)}:`);
  s.calls.forEach((c, i) => {
    out(`  ${i + 1}. ${c.tool} ${oneLine(JSON.stringify(c.args ?? {}), SHOWN_CHARS)}`);
    out(
      `     ${c.ok ? '->' : 'failed:'} ${oneLine(c.ok ? resultText(c.result) : (c.error ?? resultText(c.result)), SHOWN_CHARS)}`,
    );
  });
  // What its reported outcome credits (skillsmith outcome ID success|failure).
  if (recalled.length) {
    out(`recalled for it (${recalled.length}):`);
    for (const r of recalled) out(`  ${r.skill} (similarity ${r.similarity}, ${r.at})`);
  }
  return 0;
}

async function forget(memory: Memory, ids: string[], flags: Flags): Promise<number> {
  const forgotten: { id: string; ref: string; calls: number; skills: string[] }[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const gone = await memory.sessions.forget(id, { actor: 'cli' });
    if (gone) forgotten.push({ id, ...gone });
    else missing.push(id);
  }
  if (flags.json) printJson({ forgotten, missing });
  else {
    for (const f of forgotten)
      out(
        `session ${f.id} forgotten (${f.calls} calls)${f.skills.length ? `; ${f.skills.join(', ')} keep a forgotten-parent marker` : ''}`,
      );
    for (const id of missing) writeErr(`skillsmith: no session "${escapeControl(id)}"\n`);
  }
  return missing.length ? 1 : 0;
}

const callCount = (s: Pick<Session, 'calls'>) => `${s.calls.length} call${s.calls.length === 1 ? '' : 's'}`;

/** A result as stored (text, or JSON a recorder kept as a value), as text. */
function resultText(result: unknown): string {
  if (result == null || result === '') return '(no result)';
  return typeof result === 'string' ? result : JSON.stringify(result);
}

/**
 * An outcome, and whether the outcome judge gave it rather than the log (`success (judged)`), or whether the session
 * is still open with no outcome given (`unknown (open)`).
 */
function outcomeText(s: Session): string {
  const source = outcomeSourceOf(s);
  return source === 'judged' ? `${s.outcome} (judged)` : source === null ? `${s.outcome} (open)` : s.outcome;
}
