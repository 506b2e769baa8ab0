import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { CONFIG_ENV } from '../src/config/sources.js';
import { BUILT_CLI, copyMemory, type Run, runBuiltCli } from './support/built-cli.js';

// The Stop hook (`ingest --hook`, README "Claude Code and Gemini CLI hooks") runs after every reply and reads the
// transcript from the first line of the task the last run ended in, not from the start. What it stores must be what
// one ingest of the whole file stores: the same tasks, calls, goals, outcomes and recalls linked to them. Each real
// Claude Code transcript of test/fixtures is written as Claude Code writes it, a piece at a time (every line, and a
// few cuts inside a line: a write in progress), with the built CLI's `ingest --hook` after each piece, and the
// recalls a UserPromptSubmit hook makes before each prompt; then compared with a fresh memory that got the same
// recalls and one `ingest FILE` of the whole transcript.

const ROOT = new URL('..', import.meta.url).pathname;
const CAPTURE = join(ROOT, 'test', 'fixtures', 'capture');
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');
const FIXTURES = ['claude-code-2.1.jsonl', 'claude-code-session.jsonl', 'claude-code-two-tasks.jsonl'];

let tmp: string;
let learnedDb: string;
let counter = 0;

function cli(args: string[], input = ''): Run {
  return runBuiltCli(args, {
    cwd: tmp,
    env: { SKILLSMITH_RECALL_DAEMON: '0' },
    unset: ['SKILLSMITH_LEAN_RECALL'],
    input,
  });
}

function ok(r: Run): Run {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** What Claude Code hands a Stop hook, and a UserPromptSubmit hook. */
const stop = (transcript: string, sessionId: string) =>
  JSON.stringify({ session_id: sessionId, transcript_path: transcript, hook_event_name: 'Stop' });
const promptSubmit = (prompt: string, transcript: string, sessionId: string) =>
  JSON.stringify({ session_id: sessionId, transcript_path: transcript, hook_event_name: 'UserPromptSubmit', prompt });

/** The Stop hook's ingest, with --json: what it read from (`readFrom`, absent when it read the whole file). */
function stopHook(db: string, transcript: string, sessionId: string): { readFrom?: { line: number; byte: number } } {
  const r = ok(cli(['ingest', '--hook', '--json', '--db', db], stop(transcript, sessionId)));
  return (JSON.parse(r.stdout) as { readFrom?: { line: number; byte: number } }[])[0] ?? {};
}

/** The session id a transcript's lines carry, and the prompt a line holds (a person's request), if it is one. */
const sessionOf = (text: string) => /"sessionId":\s*"([^"]+)"/.exec(text)?.[1] ?? 'unknown';
function promptOf(line: string): string | null {
  let v: { type?: string; isMeta?: boolean; isSidechain?: boolean; message?: { content?: unknown } };
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (v.type !== 'user' || v.isMeta || v.isSidechain) return null;
  const c = v.message?.content;
  const text =
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c
            .filter((b) => b?.type === 'text')
            .map((b) => String(b.text))
            .join('')
        : '';
  return text.trim() && !/^\s*(<|Caveat:|\[Request interrupted)/.test(text) ? text : null;
}

/** Where the transcript is cut: after every line, and inside a few lines (halfway through their bytes). */
function cutsOf(bytes: Buffer, midLines: number): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) ends.push(i + 1);
  const cuts = new Set(ends);
  const step = Math.max(1, Math.floor(ends.length / (midLines + 1)));
  for (let k = 1; k <= midLines; k++) {
    const from = ends[k * step - 1] ?? 0;
    const to = ends[k * step] ?? bytes.length;
    cuts.add(from + Math.floor((to - from) / 2));
  }
  cuts.add(bytes.length);
  return [...cuts].filter((c) => c > 0 && c <= bytes.length).sort((a, b) => a - b);
}

/** Every stored session of a memory, as stored (calls, goals, outcomes, times, labels), with the skills recalled for it. */
async function storedSessions(db: string) {
  const memory = await openMemory({ db, logLevel: 'silent' });
  try {
    const list = await memory.sessions.list({ limit: 10_000 });
    const out = [];
    for (const s of list.sort((a, b) => a.id.localeCompare(b.id))) {
      const { seq: _seq, ...session } = s as typeof s & { seq?: number };
      const recalled = (await memory.sessions.recalled(s.id)).map((r) => r.skill).sort();
      out.push({ ...session, recalled });
    }
    return out;
  } finally {
    await memory.close();
  }
}

/**
 * A transcript written a piece at a time, the Stop hook after each piece (with `concurrently`, two at once at some
 * cuts), the prompt hook's recall before each piece that holds a prompt. Returns the reads that began past the
 * start of the file.
 */
function hookedWrites(db: string, transcript: string, bytes: Buffer, cuts: number[]) {
  const sessionId = sessionOf(bytes.toString('utf8'));
  writeFileSync(transcript, '');
  let written = 0;
  const readFrom: number[] = [];
  for (const cut of cuts) {
    const piece = bytes.subarray(written, cut);
    // The prompts of the lines this piece completes: the UserPromptSubmit hook ran before Claude Code wrote them.
    for (const line of linesEndingIn(bytes, written, cut)) {
      const prompt = promptOf(line);
      if (prompt) ok(cli(['recall', '--hook', '--db', db], promptSubmit(prompt, transcript, sessionId)));
    }
    appendFileSync(transcript, piece);
    written = cut;
    const r = stopHook(db, transcript, sessionId);
    if (r.readFrom) {
      readFrom.push(r.readFrom.byte);
      // The read began at the first byte of a line.
      expect(bytes[r.readFrom.byte - 1]).toBe(0x0a);
    }
  }
  return { readFrom, sessionId };
}

/** The lines whose newline falls in bytes `from` to `to`. */
function linesEndingIn(bytes: Buffer, from: number, to: number): string[] {
  const out: string[] = [];
  for (let nl = bytes.indexOf(0x0a, from); nl >= 0 && nl < to; nl = bytes.indexOf(0x0a, nl + 1)) {
    const start = bytes.lastIndexOf(0x0a, nl - 1) + 1;
    out.push(bytes.subarray(start, nl).toString('utf8'));
  }
  return out;
}

/** A fresh copy of the learned memory that gets the same recalls, then one ingest of the whole transcript. */
function oneShot(transcript: string, sessionId: string): string {
  const db = copyMemory(learnedDb, join(tmp, `one-shot-${++counter}`));
  for (const line of readFileSync(transcript, 'utf8').split('\n')) {
    const prompt = promptOf(line);
    if (prompt) ok(cli(['recall', '--hook', '--db', db], promptSubmit(prompt, transcript, sessionId)));
  }
  ok(cli(['ingest', transcript, '--db', db]));
  return db;
}

beforeAll(() => {
  if (!existsSync(BUILT_CLI)) throw new Error('run npm run build first: this test runs the built CLI');
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-stop-hook-'));
  learnedDb = join(tmp, 'learned', 'memory.db');
  mkdirSync(join(tmp, 'learned'));
  ok(cli(['learn', SAMPLE, '--db', learnedDb]));
}, 180_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('ingest --hook reads what the transcript gained, and stores what a whole read stores', () => {
  for (const name of FIXTURES)
    it(`${name}, written a line at a time and cut inside lines`, async () => {
      const bytes = readFileSync(join(CAPTURE, name));
      const db = copyMemory(learnedDb, join(tmp, `hooked-${++counter}`));
      const transcript = join(tmp, `${++counter}-${name}`);
      const { readFrom, sessionId } = hookedWrites(db, transcript, bytes, cutsOf(bytes, 4));
      // Once the second task began, the hook read from a task's first line, not from the start.
      expect(readFrom.length).toBeGreaterThan(0);
      const whole = await storedSessions(oneShot(transcript, sessionId));
      expect(whole.length).toBeGreaterThan(1);
      // The two-task transcript asks what the learned sample's skills do: its recalls are compared too.
      if (name === 'claude-code-two-tasks.jsonl') expect(whole.filter((s) => s.recalled.length).length).toBe(2);
      expect(await storedSessions(db)).toEqual(whole);
    }, 240_000);

  it('two transcripts joined into one (a resumed session: lines of another session id), two hooks at once', async () => {
    const bytes = Buffer.concat(FIXTURES.slice(0, 2).map((f) => readFileSync(join(CAPTURE, f))));
    const db = copyMemory(learnedDb, join(tmp, `hooked-${++counter}`));
    const transcript = join(tmp, `${++counter}-joined.jsonl`);
    const cuts = cutsOf(bytes, 2).filter((_, i, all) => i % 3 === 0 || i === all.length - 1);
    const { readFrom, sessionId } = hookedWrites(db, transcript, bytes, cuts);
    expect(readFrom.length).toBeGreaterThan(0);
    // Two Stop hooks at once on the same transcript (two replies close together) store nothing twice.
    const both = await Promise.all([0, 1].map(() => spawnHook(db, transcript, sessionId)));
    expect(both).toEqual([0, 0]);
    expect(await storedSessions(db)).toEqual(await storedSessions(oneShot(transcript, sessionId)));
  }, 240_000);

  it('a prompt edited and run again (a rewind to a task read before) is read as a whole read reads it', async () => {
    // The session fixture, then its second prompt edited: a new line under the same parent, and its own answer.
    const lines = readFileSync(join(CAPTURE, 'claude-code-session.jsonl'), 'utf8').split('\n').filter(Boolean);
    const second = lines.findIndex((l) => promptOf(l)?.startsWith('Add a CHANGELOG entry'));
    const parent = JSON.parse(lines[second]!).parentUuid as string;
    const edited = lines.slice(second, second + 2).map((l, k) => {
      const v = JSON.parse(l);
      v.uuid = `edited-${k}`;
      v.parentUuid = k === 0 ? parent : 'edited-0';
      if (k === 0) v.message.content = 'Add a CHANGELOG entry for release 2.4.2 instead';
      return JSON.stringify(v);
    });
    const bytes = Buffer.from(`${[...lines, ...edited].join('\n')}\n`);
    const cuts = cutsOf(bytes, 1);
    const hooked = copyMemory(learnedDb, join(tmp, `hooked-${++counter}`));
    const byFile = copyMemory(learnedDb, join(tmp, `by-file-${++counter}`));
    const transcript = join(tmp, `${++counter}-rewound.jsonl`);
    const sessionId = sessionOf(bytes.toString('utf8'));
    writeFileSync(transcript, '');
    let written = 0;
    for (const cut of cuts) {
      appendFileSync(transcript, bytes.subarray(written, cut));
      written = cut;
      // The hook, against the same transcript read whole each time (what the hook did before), after every piece: a
      // copy under another name has no mark, so the hook reads it whole, as a transcript its agent is still writing
      // (a task it ends in the middle of is left unjudged by both, where `ingest FILE` takes the file as whole).
      cli(['ingest', '--hook', '--db', hooked], stop(transcript, sessionId));
      const whole = join(tmp, `${++counter}-rewound-whole.jsonl`);
      writeFileSync(whole, readFileSync(transcript));
      cli(['ingest', '--hook', '--db', byFile], stop(whole, sessionId));
      expect(await storedSessions(hooked)).toEqual(await storedSessions(byFile));
    }
    // The edited prompt's task was stored after the first one under its id: a whole read names the conflict too.
    expect((await storedSessions(hooked)).map((s) => s.goal)).toContain(
      'Add a CHANGELOG entry for release 2.4.1 mentioning the ISO week fix',
    );
  }, 240_000);

  it('a transcript replaced, cut shorter, or whose mark cannot be read is read whole, never an error', async () => {
    const bytes = readFileSync(join(CAPTURE, 'claude-code-session.jsonl'));
    const db = join(tmp, `fresh-${++counter}.db`);
    const transcript = join(tmp, `${++counter}-replaced.jsonl`);
    const { sessionId } = hookedWrites(db, transcript, bytes, cutsOf(bytes, 0).slice(-3));
    const expected = await storedSessions(db);
    expect(expected.length).toBe(3);
    expect(stopHook(db, transcript, sessionId).readFrom).toBeDefined();

    // Replaced by a new file (another inode) with the same lines: read whole, nothing stored twice.
    writeFileSync(`${transcript}.new`, bytes);
    renameSync(`${transcript}.new`, transcript);
    expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();
    expect(stopHook(db, transcript, sessionId).readFrom).toBeDefined();

    // Cut shorter (the same inode): read whole, no error; written again: read whole, nothing stored twice.
    truncateSync(transcript, 100);
    expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();
    appendFileSync(transcript, bytes.subarray(100));
    expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();
    expect(stopHook(db, transcript, sessionId).readFrom).toBeDefined();

    // Rewritten in place with another session's lines of the same length: read whole, stored as that session.
    const other = bytes.toString('utf8').replaceAll(
      sessionId,
      sessionId.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
    );
    writeFileSync(transcript, other);
    expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();
    const twice = await storedSessions(db);
    expect(twice.length).toBe(expected.length * 2);
    writeFileSync(transcript, bytes);
    expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();

    // A mark that is not JSON, or not a mark: read whole.
    for (const value of ['{not json', '{"v":99}']) {
      const sql = new Database(db);
      const changed = sql.prepare("UPDATE state SET value = ? WHERE key LIKE 'transcript:%'").run(value).changes;
      sql.close();
      expect(changed).toBe(1);
      expect(stopHook(db, transcript, sessionId).readFrom).toBeUndefined();
    }
    expect(await storedSessions(db)).toEqual(twice);
  }, 240_000);
});

/** The Stop hook as its own process, not waited for: resolves with its exit code. */
function spawnHook(db: string, transcript: string, sessionId: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SKILLSMITH_RECALL_DAEMON: '0' };
    for (const v of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...CONFIG_ENV.map((c) => c.name)]) delete env[v];
    const child = spawn(process.execPath, [BUILT_CLI, 'ingest', '--hook', '--db', db], {
      cwd: tmp,
      env,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
    child.stdin.end(stop(transcript, sessionId));
  });
}
