import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isatty } from 'node:tty';
import { parseArgs } from 'node:util';
import { currentSessionId } from '../../capture/gemini-session-id.js';
import { agentSessionId } from '../../domain/agent-session.js';
import { keepFirst, keepLast } from '../../support/text.js';

/** Every flag the CLI accepts (one parser for all commands: an unknown flag is a usage error, exit 2). */
const options = {
  db: { type: 'string' },
  namespace: { type: 'string' },
  config: { type: 'string' },
  format: { type: 'string' },
  judge: { type: 'string' },
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'top-k': { type: 'string' },
  tools: { type: 'string' },
  hook: { type: 'boolean' },
  try: { type: 'string' },
  sessions: { type: 'string' },
  cue: { type: 'string' },
  facts: { type: 'string' },
  commit: { type: 'boolean' },
  session: { type: 'string' },
  // feedback: an idempotency key
  id: { type: 'string' },
  // eval
  train: { type: 'string' },
  test: { type: 'string' },
  label: { type: 'string' },
  split: { type: 'string' },
  report: { type: 'string' },
  name: { type: 'string' },
  variants: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  'no-replay': { type: 'boolean' },
  goals: { type: 'string' },
  // serve / mcp
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'require-token': { type: 'boolean' },
  http: { type: 'boolean' },
  details: { type: 'boolean' },
  out: { type: 'string' },
  all: { type: 'boolean' },
  force: { type: 'boolean' },
  // skills edit
  file: { type: 'string' },
  revert: { type: 'boolean' },
  // sessions forget
  'older-than': { type: 'string' },
  before: { type: 'string' },
  // hooks install|uninstall
  agent: { type: 'string' },
  project: { type: 'boolean' },
  'log-level': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

export function parseCommandLine(argv: string[]) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

/**
 * Whether a command line gives --json, read also from one the parser refuses (an unknown flag): its error is then
 * said as JSON too. A `--json` after `--` is an argument, not the flag.
 */
export function jsonAsked(argv: string[]): boolean {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: false }).values.json === true;
  } catch {
    return false;
  }
}

/** A flag's long name. */
export type FlagName = keyof typeof options;

/** The long names of every flag, for suggesting one when a flag is mistyped. */
export const FLAG_NAMES: readonly string[] = Object.keys(options);

/** The parsed flags, as every command receives them. */
export type Flags = ReturnType<typeof parseCommandLine>['values'];

/**
 * The goal and --top-k of `skillsmith recall`, or what is wrong with them (the recall command throws it as a
 * usage error; the short path leaves such a command line to the full CLI).
 */
export function recallArgs(
  args: string[],
  flags: Flags,
  stdin: () => string = () => '',
): { goal: string; topK: number | undefined; tools?: string[]; hookEvent?: string; session?: string } | string {
  // A hook hands the request over on stdin; an empty one (a bare slash command) asks for nothing.
  const hooked = flags.hook && args.length === 0 ? hookPrompt(stdin()) : null;
  const goal = hooked ? hooked.goal : args.join(' ').trim();
  if (flags.session !== undefined && !flags.session.trim())
    return "--session needs the id the agent's session is ingested under, e.g. --session claude-code:1f0c…";
  // The agent's session the recall is made for (--session, else the hook's session_id): its outcome credits them.
  const session = flags.session?.trim() || hooked?.session;
  const event = {
    ...(hooked?.event ? { hookEvent: hooked.event } : {}),
    ...(session ? { session } : {}),
  };
  if (!goal && !flags.hook) return 'recall needs a GOAL, e.g. skillsmith recall "cancel my order"';
  const topK = flags['top-k'] ? Number(flags['top-k']) : undefined;
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 1)) return '--top-k must be a positive integer';
  if (flags.tools === undefined) return { goal, topK, ...event };
  // The tools the agent has, comma-separated: only skills whose steps use none other are served.
  const tools = flags.tools
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tools.length === 0)
    return '--tools needs the names of the tools the agent has, e.g. --tools get_order,cancel_order';
  return { goal, topK, tools, ...event };
}

/**
 * The request a hook hands over on stdin: a JSON object whose `prompt` is what the user typed (Claude Code's
 * `UserPromptSubmit`, Gemini CLI's `BeforeAgent`) with the event's name and the agent's session (its
 * `session_id`, keyed as the ingest of that agent's transcript keys it: `claude-code:<id>`), else the text itself
 * (any other wrapper: `echo "$PROMPT" | skillsmith recall --hook`).
 */
export function hookPrompt(input: string): { goal: string; event?: string; session?: string } {
  const text = input.trim();
  if (text.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        // A hook event's object without a prompt (another event's input) asks for nothing.
        const event =
          'hook_event_name' in value && typeof value.hook_event_name === 'string' ? value.hook_event_name : '';
        const prompt = 'prompt' in value && typeof value.prompt === 'string' ? value.prompt : '';
        let id = 'session_id' in value && typeof value.session_id === 'string' ? value.session_id.trim() : '';
        // Gemini CLI: the session its log names, which the ingest of that log stores its tasks under.
        if (id && event === 'BeforeAgent' && 'transcript_path' in value && typeof value.transcript_path === 'string') {
          const cwd = 'cwd' in value && typeof value.cwd === 'string' ? value.cwd : '';
          id = logSessionId(cwd ? resolve(cwd, value.transcript_path) : value.transcript_path) ?? id;
        }
        return {
          goal: clipRequest(prompt.trim()),
          ...(event ? { event } : {}),
          ...(id ? { session: agentSessionId(event, id) } : {}),
        };
      }
    } catch {
      // Not JSON after all: the text is the request.
    }
  }
  return { goal: clipRequest(text) };
}

/**
 * How much of a Gemini CLI log is read for the session it names: its first record (the metadata), and its last bytes
 * (a later `$set` that changed the id); never the whole log, on the recall path.
 */
const LOG_HEAD_BYTES = 4096;
const LOG_TAIL_BYTES = 64 * 1024;

/**
 * The session id a Gemini CLI log at `path` names now, as its ingest stores its tasks under (currentSessionId), or
 * null (no such file, another shape, unreadable).
 */
function logSessionId(path: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(LOG_HEAD_BYTES);
    const n = readSync(fd, head, 0, LOG_HEAD_BYTES, 0);
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - LOG_TAIL_BYTES);
    const tail = Buffer.alloc(size - from);
    const m = readSync(fd, tail, 0, tail.length, from);
    return currentSessionId(head.subarray(0, n).toString('utf8'), tail.subarray(0, m).toString('utf8'), from === 0);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A hook's request longer than this is recalled for by its beginning and its end (a pasted log, then the question). */
export const MAX_HOOK_REQUEST = 8000;

function clipRequest(text: string): string {
  if (text.length <= MAX_HOOK_REQUEST) return text;
  const half = MAX_HOOK_REQUEST / 2;
  return `${keepFirst(text, half)}\n…\n${keepLast(text, half)}`;
}

/**
 * What a hook prints for the context to add: Gemini CLI reads a hook's stdout as JSON only (`BeforeAgent` adds
 * `hookSpecificOutput.additionalContext`), Claude Code adds plain text. Nothing to add stays nothing.
 */
export function hookOutput(text: string, event: string | undefined): string {
  if (event !== 'BeforeAgent' || !text) return text;
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text.trimEnd() } })}\n`;
}

/**
 * The transcript a hook hands over on stdin: the hook input of Claude Code or Gemini CLI (a JSON object whose
 * `transcript_path` every hook event carries: Claude Code's `Stop` after each reply and `SessionEnd` at the end,
 * Gemini CLI's `AfterAgent` after each turn; a relative one is under its `cwd`), else the first line of the text as
 * a path. What is wrong with the input, when no path comes out of it.
 */
export function hookTranscript(input: string): { path: string } | { problem: string } {
  const text = input.trim();
  if (!text) return { problem: 'the hook input on stdin is empty' };
  if (!text.startsWith('{')) return { path: text.split('\n')[0].trim() };
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `the hook input on stdin is not valid JSON (${(e as Error).message})` };
  }
  const path = value.transcript_path;
  if (path === undefined)
    return { problem: `the hook input has no transcript_path (its keys: ${Object.keys(value).join(', ') || 'none'})` };
  if (typeof path !== 'string' || !path.trim())
    return { problem: `transcript_path of the hook input is ${JSON.stringify(path)}, not the path of a transcript` };
  const cwd = typeof value.cwd === 'string' ? value.cwd : '';
  return { path: cwd && !isAbsolute(path) ? resolve(cwd, path) : path };
}

/**
 * What a hook wrote on stdin, to its end (empty when stdin is a terminal or cannot be read). Input that comes late
 * is waited for: fd 0 is read as it is, never through `process.stdin`, whose first touch makes a pipe non-blocking
 * (a read before the writer wrote then failed with EAGAIN, and a hook did nothing). A pipe that another process
 * left non-blocking is polled until its writer closes it, for up to STDIN_WAIT_MS.
 */
export function readStdin(): string {
  // Standard input can be read once: the text is kept, so the full CLI reads what the short recall path read
  // before it handed over (a hook's prompt was lost whenever a configuration file sent it there).
  stdinText ??= readStdinOnce();
  return stdinText;
}

let stdinText: string | undefined;

function readStdinOnce(): string {
  if (isatty(0)) return '';
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  const deadline = Date.now() + STDIN_WAIT_MS;
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && Date.now() < deadline) {
        Atomics.wait(PAUSE, 0, 0, 5);
        continue;
      }
      // EOF (Windows' end of a pipe) ends the input; any other error leaves what was read.
      break;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** How long a hook waits for input on a non-blocking stdin (hook runners allow a minute or more). */
const STDIN_WAIT_MS = 30_000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
