import type { ReaderReport } from './types.js';
import type { ToolCall } from '../domain/types.js';
import { countUnread, isObject, type JsonObject, ownCopy, parseArgs, toolResultText, type Unread } from './common.js';
import type { StreamLine } from './codex-rollout.js';
import { capText, type CaptureLimits } from './normalized-jsonl.js';
import type { BuiltSession } from './openai-agents.js';
import { rejectionLabels, TaskSplitter } from './task-splitter.js';
import { InputError } from '../errors/input-error.js';
import { emptyIdFilter, type IdFilter, mayHold, withIds } from './id-filter.js';

/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session-id>.jsonl`): one JSON object per
 * line with `type` `user` / `assistant` (every other type, `progress`, `system`, `file-history-snapshot`,
 * `queue-operation`, `summary` and whatever a later version adds, is read past and counted by kind),
 * `sessionId`, `uuid` / `parentUuid`, `timestamp`, `isSidechain`, `isMeta`, and `message` in the Anthropic
 * Messages shape: assistant `tool_use` blocks answered by `tool_result` blocks (`is_error`) in later user
 * lines, paired by `tool_use_id`.
 *
 * - The goal is the first real user prompt: meta lines (`isMeta`), slash-command echoes
 *   (`<command-name>`, `<local-command-stdout>`), interruption notices and tool-result turns are not goals.
 * - Sidechain lines (a subagent's own conversation) are skipped: the parent's `Task` call stands for them.
 * - A `/clear` command, or a new prompt after a final answer, starts a new session (task-splitter.ts);
 *   sessions after the first get `#2`, `#3`... after the transcript's session id.
 * - A call's time is its assistant line's timestamp; its duration runs to the result line's timestamp.
 * - Claude Code logs no outcome: it is left to the judge.
 */

/** How many records detection reads: a transcript may open with dozens of snapshot, hook and queue lines. */
export const DETECT_SAMPLE = 50;

/** Lines Claude Code writes besides messages, each known by a field of its own. */
const META_SIGNATURE: Record<string, string> = {
  'file-history-snapshot': 'snapshot',
  summary: 'leafUuid',
  'queue-operation': 'operation',
  'custom-title': 'customTitle',
  'last-prompt': 'lastPrompt',
};

function isMessageLine(v: JsonObject): boolean {
  return (
    (v.type === 'user' || v.type === 'assistant') &&
    isObject(v.message) &&
    typeof v.sessionId === 'string' &&
    'uuid' in v
  );
}

/** A line as Claude Code writes it: a message, or any typed line carrying the session id and a uuid, or a meta line. */
function isTranscriptLine(v: JsonObject): boolean {
  if (typeof v.type !== 'string') return false;
  if (typeof v.sessionId === 'string' && 'uuid' in v) return true;
  const field = META_SIGNATURE[v.type];
  return field !== undefined && field in v;
}

/** Whether one JSONL line is one Claude Code writes (a message, a typed line of the session, a meta line). */
export function isClaudeCodeLine(v: unknown): boolean {
  return isObject(v) && isTranscriptLine(v);
}

/**
 * Whether a JSONL file is a Claude Code transcript: most of its first few dozen records are transcript lines
 * (whatever their type). `no-messages` when no line of it is a user or assistant message (a session file
 * holding only a summary or snapshots).
 */
export function claudeCodeShape(lines: StreamLine[]): 'transcript' | 'no-messages' | null {
  let seen = 0;
  let shaped = 0;
  let messages = 0;
  for (const { value } of lines) {
    if (seen >= DETECT_SAMPLE) break;
    if (!isObject(value)) continue;
    seen++;
    if (isTranscriptLine(value)) shaped++;
    if (isMessageLine(value)) messages++;
  }
  if (seen === 0 || shaped < seen / 2) return null;
  return messages > 0 || lines.some((l) => isObject(l.value) && isMessageLine(l.value)) ? 'transcript' : 'no-messages';
}

/** The fields of a message line the reader reads (fromClaudeCode, rewoundLines, claudeCodeShape). */
const READ_FIELDS = [
  'type',
  'uuid',
  'parentUuid',
  'sessionId',
  'cwd',
  'gitBranch',
  'version',
  'timestamp',
  'isMeta',
  'isSidechain',
  'isCompactSummary',
];

/** The fields of any other line it reads: its kind and its place in the tree (the rest only needs to be there). */
const PLACE_FIELDS = new Set(['type', 'uuid', 'parentUuid', 'sessionId']);

/**
 * A transcript line with only what this reader reads of it, for a transcript read line by line (parse-file.ts), so
 * that what it reads past (progress output, file snapshots, `toolUseResult` copies, images, thinking) and the part
 * of long tool results no call keeps do not pile up while the rest of the file is read. What is read from the slim
 * line is what is read from the line: a line read past keeps every field, holding null; a message line keeps the
 * fields above and its message's content, each block it does not read reduced to its type; a tool result that is
 * not an error keeps `keep` characters of its text, past what capping and capture privacy read of it (privacy.ts
 * protectResult: 4 x resultChars + 4,096). An error keeps all of it: its exit status may be anywhere in it
 * (answeredByExit). Any other value is left as it is.
 */
export function slimClaudeCodeLine(v: unknown, keep: number): unknown {
  if (!isObject(v) || !isTranscriptLine(v)) return v;
  const out: JsonObject = {};
  if (v.type !== 'user' && v.type !== 'assistant') {
    for (const k of Object.keys(v)) out[k] = PLACE_FIELDS.has(k) ? v[k] : null;
    return out;
  }
  for (const k of READ_FIELDS) if (k in v) out[k] = v[k];
  if (!('message' in v)) return out;
  const message = v.message;
  if (!isObject(message) || !Array.isArray(message.content)) {
    out.message = isObject(message) ? ('content' in message ? { content: message.content } : {}) : message;
    return out;
  }
  const content = message.content.map((b) => {
    if (!isObject(b)) return b;
    if (b.type === 'tool_result') {
      if (b.is_error === true) return b;
      if (typeof b.content === 'string' && b.content.length <= keep) return b;
      const text = toolResultText(b.content);
      return { ...b, content: text.length <= keep ? text : ownCopy(text.slice(0, keep)) };
    }
    if (b.type === 'text' || b.type === 'tool_use' || b.type === 'server_tool_use' || b.type === 'mcp_tool_use')
      return b;
    return 'type' in b ? { type: b.type } : {};
  });
  out.message = { content };
  return out;
}

const NOT_A_PROMPT =
  /^\s*(?:<command-name>|<command-message>|<command-args>|<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|<bash-input>|<bash-stdout>|<bash-stderr>|<task-notification>|<system-reminder>|Caveat: The messages below were generated|\[Request interrupted by user)/;
const CLEAR = /<command-name>\/?clear<\/command-name>/;
/** A line that runs a slash command: its tags come first (name, message and args, in either order). */
const COMMAND_LINE = /^\s*<command-(?:name|message|args)>/;

/**
 * Claude Code's own commands that manage the session or the tool (switch a model, compact, log in...): a line that
 * runs one asks the agent for nothing. Any other slash command (a project's or a plugin's custom command, or a
 * built-in that sets the agent a task: /init, /review, /security-review, /pr-comments) is the user's request.
 */
const SESSION_COMMANDS = new Set(
  (
    'clear compact model config settings cost usage help login logout status memory permissions allowed-tools ' +
    'approved-tools resume continue doctor mcp agents hooks add-dir vim terminal-setup export context exit quit ide ' +
    'theme bug feedback release-notes upgrade rewind checkpoint output-style statusline todos tasks bashes ' +
    'privacy-settings sandbox plugin plugins marketplace install-github-app migrate-installer fast plan rename ' +
    'copy keybindings stickers extra-usage'
  ).split(' '),
);

/**
 * The request a slash-command line makes (`/orchestrator create TODO app by Next.js`), or null when the line runs
 * none or runs one of the session's own commands. Claude Code writes the command as tags
 * (`<command-name>/x</command-name>`, `<command-args>`), then its expanded prompt as a meta line.
 */
export function slashCommandRequest(text: string): string | null {
  const name = /<command-name>\s*\/?([^<\s]+)\s*<\/command-name>/.exec(text)?.[1];
  if (!name || SESSION_COMMANDS.has(name.toLowerCase())) return null;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  return args ? `/${name} ${args}` : `/${name}`;
}

/** The text a user line typed (its text blocks), '' for a tool result or anything else. */
function typedText(value: JsonObject): string {
  const content = isObject(value.message) ? value.message.content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => isObject(b) && b.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('');
}

/**
 * The request a Claude Code line makes, or null when it makes none: the one definition of a prompt, read by the task
 * splitter (a request starts or joins a task) and by the check for rewinds (a prompt under the parent of an earlier
 * one), so that the two cannot take different lines for prompts. A user line's typed text is a request, unless the
 * line is meta (`isMeta`: a caveat, a command's expanded prompt), a sidechain's, a compaction's summary
 * (`isCompactSummary`, after /compact or an automatic compaction: it stands in for earlier turns, and a command it
 * quotes is none), or Claude Code's own words (NOT_A_PROMPT: command echoes and their output, caveats, task
 * notifications, reminders, interruptions); of those, a line that runs a slash command other than the session's own
 * makes the request `/name args`. A
 * tool-result turn types nothing: no request.
 */
function requestOf(value: JsonObject): string | null {
  // A compaction's summary retells earlier turns: a command it quotes was run then, and is no request now.
  if (value.type !== 'user' || value.isMeta === true || value.isSidechain === true || value.isCompactSummary === true)
    return null;
  const text = typedText(value);
  // Only a line that is a command's own (its tags first) runs one; other lines of Claude Code's (a shell command's
  // output, a notification) may quote a command's tags as text.
  if (NOT_A_PROMPT.test(text)) return COMMAND_LINE.test(text) ? slashCommandRequest(text) : null;
  return text.trim() ? text : null;
}

/**
 * The uuids of lines on branches the user rewound: Claude Code keeps the lines of a prompt that was edited and
 * run again (or of a conversation rewound to an earlier point), and the new prompt takes the same parent. Where
 * one line has two or more prompts the person typed as children (requestOf: what the task splitter takes for a request,
 * never a compaction's summary or Claude Code's own words), every one but the last written, and all that follows from
 * it, was left behind. (Other siblings, such as an attachment beside a prompt, are not a rewind.)
 * Read on from a checkpoint (`from`), the lines before it count too: a line under one rewound there is rewound, and
 * a prompt under the parent of a prompt read there rewinds what was read (`rewindsRead`: read the file whole). Past
 * PROMPT_PARENTS_KEPT (or REWOUND_KEPT) the checkpoint keeps those lines as a filter (`promptParentsSeen`,
 * `rewoundSeen`): a line under one the filter may hold makes the file read whole, and one under a line it surely does
 * not hold (a line after the checkpoint, or one the transcript never had) is read as when they were listed. A
 * checkpoint that keeps neither list nor filter (written before the filters, or past FILTER_KEPT): any prompt under a
 * line before it, but its own, is taken for a rewind.
 */
function rewoundLines(
  lines: StreamLine[],
  from?: ClaudeCodeContext,
): { left: Set<string>; prompts: { parent: string; line: number }[]; rewindsRead: string | null } {
  const children = new Map<string, string[]>();
  const prompts = new Map<string, string[]>();
  const promptLines: { parent: string; line: number }[] = [];
  const parentsRead = new Set(from?.promptParents ?? []);
  const parentsSeen = from?.promptParentsDropped ? from.promptParentsSeen : undefined;
  const uuids = new Set<string>();
  let rewindsRead: string | null = null;
  // The checkpoint's own prompt (the first line read) was read by the read that left the checkpoint there, with what
  // it hangs under: a filter is not asked about it (a rewind to it from a later prompt is asked about that prompt).
  const first = lines[0]?.line;
  for (const { value, line } of lines) {
    if (isObject(value) && typeof value.uuid === 'string') uuids.add(value.uuid);
    if (!isObject(value) || typeof value.uuid !== 'string' || typeof value.parentUuid !== 'string') continue;
    const parent = value.parentUuid;
    listUnder(children, parent).push(value.uuid);
    if (requestOf(value) !== null) {
      listUnder(prompts, parent).push(value.uuid);
      promptLines.push({ parent, line });
      if (parentsRead.has(parent) || (parentsSeen && line !== first && mayHold(parentsSeen, parent)))
        rewindsRead ??= 'a prompt goes back to a point before the checkpoint (a rewind)';
    }
  }
  // Neither listed nor kept as a filter: the checkpoint's own prompt (the first line read) is under a line before it;
  // any other prompt under one may go back to a point no longer listed, and any other line under one may be under a
  // rewound line no longer listed.
  if (from?.promptParentsDropped && !parentsSeen && promptLines.some((p) => p.line !== first && !uuids.has(p.parent)))
    rewindsRead ??= 'a prompt goes back to a point before the checkpoint whose prompts are no longer listed';
  const rewoundSeen = from?.rewoundDropped ? from.rewoundSeen : undefined;
  if (
    from?.rewoundDropped &&
    lines.some(
      ({ value, line }) =>
        line !== first &&
        isObject(value) &&
        typeof value.parentUuid === 'string' &&
        (rewoundSeen ? mayHold(rewoundSeen, value.parentUuid) : !uuids.has(value.parentUuid)),
    )
  )
    rewindsRead ??= 'a line goes under one before the checkpoint, whose rewound lines are no longer listed';
  const left = new Set<string>();
  const stack = [...prompts.values()].flatMap((ids) => ids.slice(0, -1));
  for (const id of from?.rewound ?? []) stack.push(...(children.get(id) ?? []));
  while (stack.length) {
    const id = stack.pop()!;
    if (left.has(id)) continue;
    left.add(id);
    stack.push(...(children.get(id) ?? []));
  }
  return { left, prompts: promptLines, rewindsRead };
}

/** The list a map holds under `key`, made empty when it holds none. */
function listUnder(map: Map<string, string[]>, key: string): string[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/**
 * What reading a transcript on from a task's first line needs to know of the lines before it, so that the tasks
 * read from there are the ones a read of the whole file gives (ids, labels, rewound branches). Kept between
 * hook runs (app/capture.ts); every field is an id or a count, never the text of a line.
 */
export interface ClaudeCodeContext {
  /** The transcript's first session id (the id of tasks whose lines carry none). */
  sessionId: string | null;
  /** The session the task belongs to, and where its stretch starts, counted in tasks from this one (0, or less). */
  segment: { id: string | null; from: number };
  /** How many tasks were stored before it, per agent session (`claude-code:<id>`), for the `#n` of the next ones. */
  stored: Record<string, number>;
  cwd: string | null;
  branch: string | null;
  version: string | null;
  /**
   * The parents of the prompts before it: a later prompt under one rewinds what was read (the file is read whole).
   * Listed up to PROMPT_PARENTS_KEPT of them (about 40 bytes each); past that none is (`promptParentsDropped`): they are
   * kept as a filter instead (`promptParentsSeen`, 3 to 7 bytes each, id-filter.ts), and a later prompt under a line
   * it may hold makes the file read whole. Past FILTER_KEPT of them (or in a checkpoint written before the filter)
   * there is no filter, and a later prompt under any line before it, but its own first prompt, makes it read whole.
   */
  promptParents: string[];
  promptParentsDropped?: boolean;
  promptParentsSeen?: IdFilter;
  /**
   * The lines before it on a branch the user rewound: a later line under one is on that branch too. Listed up to
   * REWOUND_KEPT of them; past that none is (`rewoundDropped`): they are kept as a filter (`rewoundSeen`), and a later
   * line under one it may hold makes the file read whole. Past FILTER_KEPT (or without the filter), a later line under
   * any line before it, but its own first line, makes the file read whole.
   */
  rewound: string[];
  rewoundDropped?: boolean;
  rewoundSeen?: IdFilter;
}

/**
 * A read of a transcript on from a checkpoint (`from`, with the lines from that task's first one), or of the whole
 * file (no `from`). The reader says where the next read may start (`checkpoint`: the first line of the last task it
 * can start from, never the first task) and what it must know there; or, reading on, that the lines read change
 * what was read before (`mismatch`: read the file whole).
 */
export interface ClaudeCodeResume {
  from?: ClaudeCodeContext;
  checkpoint?: { line: number; context: ClaudeCodeContext } | null;
  mismatch?: string;
}

/** How many parents of prompts before a checkpoint it lists (ClaudeCodeContext.promptParents). */
const PROMPT_PARENTS_KEPT = 256;

/**
 * How many ids a checkpoint keeps in its filter of the prompt parents, or of the rewound lines, before it (at most
 * about 6.7 bytes each as kept, id-filter.ts: under 140 KB a filter): past that, neither list nor filter.
 */
const FILTER_KEPT = 20_000;

/**
 * The ids before a checkpoint (those before the checkpoint read from, `from`, and `ids`): listed while there are at
 * most `listed` of them; past that as a filter (`seen`) of at most FILTER_KEPT ids; past that neither.
 */
function listOrFilter(
  from: { list: readonly string[]; dropped?: boolean; seen?: IdFilter } | undefined,
  ids: readonly string[],
  listed: number,
): { list: string[]; dropped?: true; seen?: IdFilter } {
  if (!from?.dropped) {
    const all = [...new Set([...(from?.list ?? []), ...ids])];
    if (all.length <= listed) return { list: all };
    if (all.length > FILTER_KEPT) return { list: [], dropped: true };
    return { list: [], dropped: true, seen: withIds(emptyIdFilter(), all) };
  }
  const seen = from.seen;
  if (!seen) return { list: [], dropped: true };
  // An id the filter may hold already is not put in again: it answers the same.
  const next = withIds(
    seen,
    [...new Set(ids)].filter((id) => !mayHold(seen, id)),
  );
  return next.count > FILTER_KEPT ? { list: [], dropped: true } : { list: [], dropped: true, seen: next };
}

/** The parents of the prompts before a checkpoint at `line`: listed up to PROMPT_PARENTS_KEPT, then as a filter. */
function promptParentsOf(
  from: ClaudeCodeContext | undefined,
  prompts: readonly { parent: string; line: number }[],
  line: number,
): Pick<ClaudeCodeContext, 'promptParents' | 'promptParentsDropped' | 'promptParentsSeen'> {
  const kept = listOrFilter(
    from && { list: from.promptParents, dropped: from.promptParentsDropped, seen: from.promptParentsSeen },
    prompts.filter((p) => p.line < line).map((p) => p.parent),
    PROMPT_PARENTS_KEPT,
  );
  return {
    promptParents: kept.list,
    ...(kept.dropped ? { promptParentsDropped: true } : {}),
    ...(kept.seen ? { promptParentsSeen: kept.seen } : {}),
  };
}

/** How many lines of rewound branches before a checkpoint it lists (ClaudeCodeContext.rewound). */
const REWOUND_KEPT = 256;

/** The rewound lines before a checkpoint at `line`: listed up to REWOUND_KEPT, then as a filter. */
function rewoundOf(
  from: ClaudeCodeContext | undefined,
  read: readonly { uuid: string; line: number }[],
  line: number,
): Pick<ClaudeCodeContext, 'rewound' | 'rewoundDropped' | 'rewoundSeen'> {
  const kept = listOrFilter(
    from && { list: from.rewound, dropped: from.rewoundDropped, seen: from.rewoundSeen },
    read.filter((r) => r.line < line).map((r) => r.uuid),
    REWOUND_KEPT,
  );
  return {
    rewound: kept.list,
    ...(kept.dropped ? { rewoundDropped: true } : {}),
    ...(kept.seen ? { rewoundSeen: kept.seen } : {}),
  };
}

export function fromClaudeCode(
  lines: StreamLine[],
  namespace: string,
  limits: CaptureLimits,
  now: string,
  problems: ReaderReport[],
  unread: Unread = new Map(),
  resume?: ClaudeCodeResume,
): BuiltSession[] {
  const split = new TaskSplitter();
  const from = resume?.from;
  let sessionId: string | null = from ? from.sessionId : null;
  let cwd: string | null = from ? from.cwd : null;
  let branch: string | null = from ? from.branch : null;
  let version: string | null = from ? from.version : null;
  const startedAt = new Map<ToolCall, number>();
  let sidechain = 0;
  // Read on from a checkpoint, the lines before it held the session's first task.
  let mainLine = from !== undefined;
  const { left: rewound, prompts, rewindsRead } = rewoundLines(lines, from);
  if (resume && rewindsRead) {
    resume.mismatch = rewindsRead;
    return [];
  }
  const segments: { from: number; id: string | null }[] = from ? [{ ...from.segment }] : [];
  let firstRewound: number | null = null;
  const rewoundRead: { uuid: string; line: number }[] = [];
  // Where tasks began on a line of their own (its request, nothing of the task before): where a read may start.
  const begun: { task: number; line: number }[] = [];
  for (const { value, line } of lines) {
    if (!isObject(value)) {
      problems.push({ line, path: '', reason: 'not a transcript line (expected an object)' });
      continue;
    }
    if (typeof value.uuid === 'string' && rewound.has(value.uuid)) {
      firstRewound ??= line;
      rewoundRead.push({ uuid: value.uuid, line });
      continue;
    }
    if (value.type !== 'user' && value.type !== 'assistant') {
      // progress, system, file-history-snapshot, queue-operation, summary... and whatever a newer version adds.
      countUnread(unread, value.type);
      continue;
    }
    if (value.isSidechain === true) {
      sidechain++;
      continue;
    }
    mainLine = true;
    if (!isObject(value.message)) {
      problems.push({ line, path: 'message', reason: `message: missing in a ${value.type} line` });
      continue;
    }
    // Lines of another session (transcripts joined into one file, or a resumed session's copied history under its
    // first id) start a task of their own, stored under that session's id.
    const lineSession = typeof value.sessionId === 'string' ? value.sessionId : null;
    if (segments.length === 0) segments.push({ from: 0, id: lineSession });
    else if (lineSession && lineSession !== segments[segments.length - 1].id) {
      split.reset();
      segments.push({ from: split.tasks.length, id: lineSession });
    }
    sessionId = sessionId ?? lineSession;
    cwd = cwd ?? (typeof value.cwd === 'string' ? value.cwd : null);
    branch = branch ?? (typeof value.gitBranch === 'string' && value.gitBranch ? value.gitBranch : null);
    version = version ?? (typeof value.version === 'string' ? value.version : null);
    const at = typeof value.timestamp === 'string' ? value.timestamp : null;
    const content = value.message.content;
    const blocks: unknown[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    try {
      if (value.type === 'user') {
        const text = typedText(value);
        const tasksBefore = split.tasks.length;
        let touched = false;
        if (CLEAR.test(text)) split.reset();
        blocks.forEach((b, j) => {
          if (!isObject(b) || b.type !== 'tool_result') return;
          touched = true;
          const where = `message.content[${j}]`;
          const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : null;
          const pending = split.current.pending;
          let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
          if (k < 0 && id !== null)
            throw new InputError(`${where}: tool_result for ${id}, which no earlier tool_use has`);
          if (k < 0) k = 0;
          const match = pending.splice(k, 1)[0];
          if (!match) throw new InputError(`${where}: tool_result without a pending tool_use`);
          const result = toolResultText(b.content);
          match.call.result = capText(result, limits.resultChars);
          if (b.is_error === true) {
            match.call.ok = false;
            match.call.error = capText(result || 'is_error', 500);
          }
          const t0 = startedAt.get(match.call);
          const t1 = at ? Date.parse(at) : NaN;
          if (t0 !== undefined && Number.isFinite(t1) && t1 >= t0) match.call.durationMs = t1 - t0;
          split.resulted(at);
        });
        const request = requestOf(value);
        if (request !== null) split.user(request, line, at);
        if (!touched && split.tasks.length > tasksBefore) begun.push({ task: split.tasks.length - 1, line });
      } else {
        let said = '';
        let called = false;
        blocks.forEach((b, j) => {
          if (!isObject(b)) return;
          if (b.type === 'tool_use' || b.type === 'server_tool_use' || b.type === 'mcp_tool_use') {
            const where = `message.content[${j}]`;
            if (typeof b.name !== 'string' || !b.name) throw new InputError(`${where}.name: missing`);
            const call: ToolCall = {
              position: 0,
              tool: b.name,
              args: parseArgs(b.input, `${where}.input`),
              result: '',
              ok: true,
              error: null,
              durationMs: null,
              at,
            };
            const t0 = at ? Date.parse(at) : NaN;
            if (Number.isFinite(t0)) startedAt.set(call, t0);
            split.call(typeof b.id === 'string' ? b.id : null, call, true, at);
            called = true;
          } else if (b.type === 'text' && typeof b.text === 'string') said += b.text;
        });
        // Text beside a tool_use is narration, not an answer.
        if (said.trim() && !called) split.assistantText(said, at);
      }
    } catch (e) {
      problems.push({ line, path: '', reason: (e as Error).message });
    }
  }

  if (sidechain && !mainLine) {
    problems.push({
      line: lines[0]?.line ?? 1,
      path: '',
      reason: `a Claude Code subagent transcript (all ${sidechain} message lines are sidechain): nothing to store on its own; ingest the main session file, where the subagent's work is its Task call`,
    });
    return [];
  }
  if (firstRewound !== null)
    problems.push({
      line: firstRewound,
      path: '',
      reason: `${rewound.size} line(s) of a branch the user rewound (a prompt edited and run again) were left out: its calls are not the session's`,
      note: true,
    });
  if (
    from &&
    ((from.sessionId === null && sessionId !== null) ||
      (from.cwd === null && cwd !== null) ||
      (from.branch === null && branch !== null) ||
      (from.version === null && version !== null))
  ) {
    // The first value of a label came after the checkpoint: a whole read gives it to the tasks before it too.
    resume!.mismatch = 'a label the tasks before the checkpoint take appears after it';
    return [];
  }
  const chatter = split.chatterNote();
  if (chatter) problems.push(chatter);
  const out: BuiltSession[] = [];
  // Each session's tasks are numbered on their own: its first task has its id, the next ones #2, #3...
  const stored = new Map<string, number>(Object.entries(from?.stored ?? {}));
  // The next read starts at the last task that began on a line of its own (never the first task of the file).
  const mark = [...begun].reverse().find((b) => b.task >= 1) ?? null;
  let storedBefore: Record<string, number> = {};
  split.tasks.forEach((t, i) => {
    if (i === mark?.task) storedBefore = Object.fromEntries(stored);
    const segment = segments.filter((x) => x.from <= i).pop() ?? { from: 0, id: sessionId };
    const base = `claude-code:${segment.id ?? sessionId ?? 'unknown'}`;
    if (t.goal === null) {
      if (t.calls.length)
        problems.push({
          line: t.line,
          path: '',
          reason: `${t.calls.length} tool call(s) with no user prompt before them to take the goal from`,
        });
      return;
    }
    if (split.isChatter(t)) return;
    if (t.calls.length > limits.maxCallsPerSession) {
      problems.push({
        line: t.line,
        path: '',
        reason: `${t.calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
      });
      return;
    }
    out.push({
      line: t.line,
      finalAnswer: t.finalAnswer,
      ...(split.unfinished(t) ? { unfinished: true as const } : {}),
      session: {
        id: !stored.get(base) && i === segment.from ? base : `${base}#${(stored.get(base) ?? 0) + 1}`,
        namespace,
        goal: t.goal,
        outcome: 'unknown',
        reward: null,
        agentId: 'claude-code',
        source: 'claude-code',
        startedAt: t.startedAt ?? now,
        endedAt: split.endedAt(t, now),
        labels: {
          format: 'claude-code',
          ...(cwd ? { cwd } : {}),
          ...(branch ? { git_branch: branch } : {}),
          ...(version ? { version } : {}),
          ...rejectionLabels(t),
        },
        calls: t.calls,
        outcomeSource: 'reported',
      },
    });
    stored.set(base, (stored.get(base) ?? 0) + 1);
  });
  if (resume) {
    const segment = mark && segments.filter((x) => x.from <= mark.task).pop();
    resume.checkpoint =
      mark && segment
        ? {
            line: mark.line,
            context: {
              sessionId,
              segment: { id: segment.id, from: segment.from - mark.task },
              stored: storedBefore,
              cwd,
              branch,
              version,
              ...promptParentsOf(from, prompts, mark.line),
              ...rewoundOf(from, rewoundRead, mark.line),
            },
          }
        : null;
  }
  return out;
}
