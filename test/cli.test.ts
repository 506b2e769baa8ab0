import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config/config.js';
import { CONFIG_ENV } from '../src/config/sources.js';
import { deadPort } from './fixtures/fake-openai-server.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');
const IMPORT_FIXTURES = join(ROOT, 'test', 'fixtures', 'skills-import');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface SkillJson {
  id: string;
  name: string;
  description: string;
  status: string;
  enabled: boolean;
  version: string;
  corpus: string;
  toolsRequired: string[];
  toolSequence: string[];
  branches: { when: { tool: string; path: string; in: string[] }; toolSequence: string[] }[];
  successCount: number;
  attemptCount: number;
  eta: number;
  sourceSessions: string[];
  lastUsedAt: string | null;
}

interface RecallJson {
  id: string;
  name: string;
  similarity: number;
  toolsRequired: string[];
  toolSequence: string[];
  branches: SkillJson['branches'];
  body: string;
}

let tmp: string;
let sharedDb: string;
let learnRun: Run;
let learned: SkillJson[];
/** session_id -> goal of every record of the sample file. */
const sampleGoals = new Map<string, string>();
const sampleLines = readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .filter((l) => l.trim());
for (const l of sampleLines) {
  const r = JSON.parse(l) as { session_id: string; goal: string };
  sampleGoals.set(r.session_id, r.goal);
}

/** Runs the real binary as a child process, from a temp working directory (so a stray default DB lands there). */
function cli(args: string[], cwd = tmp, extraEnv: Record<string, string> = {}): Run {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The caller's own settings must not leak into the runs (a memory path, a configured model server).
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...CONFIG_ENV.map((v) => v.name)]) delete env[name];
  Object.assign(env, extraEnv);
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a command that must succeed and parses its --json output. */
function json<T>(args: string[]): T {
  const r = cli([...args, '--json']);
  expect(r.code, `skillsmith ${args.join(' ')} --json\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

let dbCounter = 0;
function freshDb(): string {
  return join(tmp, `db-${++dbCounter}`, 'memory.db');
}

/** A private copy of the shared learned DB, for tests that change it. */
function copyOfShared(): string {
  const path = freshDb();
  mkdirSync(join(path, '..'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm'])
    if (existsSync(sharedDb + suffix)) copyFileSync(sharedDb + suffix, path + suffix);
  return path;
}

function countSessions(db: string, namespace = 'default'): number {
  const raw = new Database(db);
  try {
    return (raw.prepare('SELECT COUNT(*) AS n FROM sessions WHERE namespace = ?').get(namespace) as { n: number }).n;
  } finally {
    raw.close();
  }
}

function sessionIds(db: string): Set<string> {
  const raw = new Database(db);
  try {
    return new Set((raw.prepare('SELECT id FROM sessions').all() as { id: string }[]).map((r) => r.id));
  } finally {
    raw.close();
  }
}

const recall = (db: string, goal: string, extra: string[] = []) =>
  json<RecallJson[]>(['recall', goal, '--db', db, ...extra]);
const list = (db: string, extra: string[] = []) => json<SkillJson[]>(['skills', 'list', '--db', db, ...extra]);

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-cli-'));
  sharedDb = join(tmp, 'shared', 'memory.db');
  learnRun = cli(['learn', SAMPLE, '--db', sharedDb]);
  learned = learnRun.code === 0 ? list(sharedDb) : [];
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('skillsmith ingest', () => {
  it('stores the 89 sample sessions once; ingesting again stores nothing and reports them already present', () => {
    const db = freshDb();
    const first = cli(['ingest', SAMPLE, '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/\b89 sessions stored, 0 already present\b/);
    expect(first.stderr).toBe('');
    expect(countSessions(db)).toBe(89);

    const again = cli(['ingest', SAMPLE, '--db', db]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/\b0 sessions stored, 89 already present\b/);
    expect(countSessions(db)).toBe(89);

    const asJson = json<{ inserted: number; skipped: number; problems: unknown[] }[]>(['ingest', SAMPLE, '--db', db]);
    expect(asJson).toHaveLength(1);
    expect(asJson[0]).toMatchObject({ inserted: 0, skipped: 89, problems: [] });
    expect(countSessions(db)).toBe(89);
  });

  it('stores every valid line of a file with bad lines, names each bad one as file:line: reason and exits non-zero', () => {
    const db = freshDb();
    // A session stored before the bad file must survive it.
    const earlier = join(tmp, `earlier-${dbCounter}.jsonl`);
    writeFileSync(earlier, `${sampleLines[10]}\n`);
    expect(cli(['ingest', earlier, '--db', db]).code).toBe(0);
    const earlierId = (JSON.parse(sampleLines[10]) as { session_id: string }).session_id;

    // Over the limit in many short texts (a long text alone would be cut to size, and the record kept).
    const huge = JSON.stringify({
      session_id: 'huge-session',
      goal: 'An oversized record',
      success: true,
      steps: [
        { tool: 'dump', args: { parts: Array.from({ length: 500_000 }, (_, i) => `p${i}`) }, result: 'x', ok: true },
      ],
    });
    expect(Buffer.byteLength(huge)).toBeGreaterThan(4 * 1024 * 1024);
    const file = join(tmp, `mixed-${dbCounter}.jsonl`);
    const lines = [
      sampleLines[0], // 1 good
      '{"session_id": "broken", "goal": "no closing brace", "steps": [', // 2 malformed JSON
      sampleLines[1], // 3 good
      JSON.stringify({ session_id: 'typed-wrong', goal: 7, steps: 'none' }), // 4 wrong types
      huge, // 5 oversized
      sampleLines[2], // 6 good
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const goodIds = [0, 1, 2].map((i) => (JSON.parse(sampleLines[i]) as { session_id: string }).session_id);

    const r = cli(['ingest', file, '--db', db]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stdout).toMatch(/\b3 sessions stored\b/);
    const problemLines = r.stderr.split('\n').filter((l) => l.startsWith(`${file}:`));
    expect(problemLines.map((l) => Number(l.slice(file.length + 1).split(':')[0]))).toEqual([2, 4, 5]);
    for (const l of problemLines)
      expect(l).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: \\S`));
    expect(problemLines[0]).toMatch(/JSON/);
    expect(problemLines[1]).toMatch(/goal/);
    expect(problemLines[1]).toMatch(/steps/);
    expect(problemLines[2]).toMatch(/bytes/);

    const ids = sessionIds(db);
    expect(ids.size).toBe(4);
    for (const id of [earlierId, ...goodIds]) expect(ids.has(id)).toBe(true);
    expect(ids.has('huge-session')).toBe(false);
    expect(ids.has('typed-wrong')).toBe(false);
  });
});

describe('skills list: the track record beside the evidence', () => {
  it("shows a skill's trials beside the evidence it was learned on: 1 of 5 passed is not read as its 100%", () => {
    const db = copyOfShared();
    const name = list(db).find((s) => s.attemptCount > 0 && s.successCount === s.attemptCount)!.name;
    const row = (text: string) => text.split('\n').find((l) => l.startsWith(`${name} `))!;
    expect(row(cli(['skills', 'list', '--db', db]).stdout)).toMatch(/\s100% \(\d+\/\d+\)\s+-\s/);
    for (let i = 0; i < 4; i++) expect(cli(['feedback', name, 'fail', '--db', db]).code).toBe(0);
    expect(cli(['feedback', name, 'pass', '--db', db]).code).toBe(0);
    expect(row(cli(['skills', 'list', '--all', '--db', db]).stdout)).toMatch(/\s100% \(\d+\/\d+\)\s+1\/5 passed\s/);
  });
});

describe('skillsmith feedback --id', () => {
  it('counts a feedback run again under its --id once, says so, and refuses another signal under it', () => {
    const db = copyOfShared();
    const name = list(db)[0]!.name;
    const eta = () => list(db).find((s) => s.name === name)!.eta;
    const before = eta();
    const first = json<{ before: { eta: number }; after: { eta: number }; repeated: boolean }>([
      'feedback',
      name,
      'down',
      '--id',
      'cli-retry-1',
      '--db',
      db,
    ]);
    expect(first.repeated).toBe(false);
    expect(first.after.eta).toBeLessThan(before);
    // The script ran it again after a timeout: nothing more is counted, and it says why.
    const again = cli(['feedback', name, 'down', '--id', 'cli-retry-1', '--db', db]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^${name}: this feedback was given before under this --id; not counted again`),
    );
    expect(json<{ repeated: boolean }>(['feedback', name, 'down', '--id', 'cli-retry-1', '--db', db]).repeated).toBe(
      true,
    );
    const other = cli(['feedback', name, 'up', '--id', 'cli-retry-1', '--db', db]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/this feedback id was given before, with user\.negative for /);
    expect(eta()).toBe(first.after.eta);
    expect(cli(['feedback', '--help']).stdout).toMatch(/--id KEY/);
  });
});

describe('skillsmith learn', () => {
  it('exits 0 and prints the learned skills, a recall example and how to export', () => {
    expect(learnRun.code, learnRun.stderr).toBe(0);
    expect(learned.length).toBeGreaterThan(0);
    const out = learnRun.stdout;
    expect(out).toMatch(/89 new sessions/);
    expect(out).toContain(`Learned skills (${learned.length}):`);
    expect(out).toMatch(/^name\s+status\s+support\s+success rate\s+trials\s+tools$/m);
    for (const s of learned) expect(out).toMatch(new RegExp(`^${s.name}\\s+${s.status}\\b`, 'm'));
    expect(out).toMatch(/Recall example: a goal it learned from, ".+"/);
    expect(out).toMatch(/ -> \S+ \(similarity \d\.\d\d\)/);
    expect(out).toContain('skillsmith skills export --out');
    expect(out).toContain(`--db ${sharedDb}`);
  });

  it('learns from goals that hold a long blob (a token, a pasted log): a skill, and a recall example, exit 0', () => {
    // Each goal carries a 120,000-letter run with no space: every split of it was tried as a compound word (minutes
    // of work for the pass), and the example recall refused the goal as longer than a request.
    const file = join(tmp, 'blob-goals.jsonl');
    const lines = [0, 1, 2].map((i) =>
      JSON.stringify({
        session_id: `blob-${i}`,
        goal: `please decode this token ${'xy'.repeat(60_000)} and save it`,
        success: true,
        steps: [
          { tool: 'decode_token', args: { token: 'q'.repeat(50_000) }, result: 'ok' },
          { tool: 'save_result', args: {}, result: 'saved' },
        ],
      }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = cli(['learn', file, '--db', freshDb()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\S+\s+probationary\s+3\s+100% \(3\/3\)\s+-\s+decode_token > save_result$/m);
    expect(r.stdout).toMatch(/Recall example: a goal it learned from, "please decode this token xyxy/);
  });

  it('skills list --json gives every skill with its stable fields; every source session comes from the sample', () => {
    expect(Array.isArray(learned)).toBe(true);
    expect(learned.length).toBeGreaterThan(0);
    const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
    for (const s of learned) {
      expect(typeof s.id).toBe('string');
      expect(s.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(typeof s.description).toBe('string');
      expect(s.description.length).toBeGreaterThan(0);
      expect(['probationary', 'active', 'retired']).toContain(s.status);
      expect(s.enabled).toBe(true);
      expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(strings(s.toolsRequired)).toBe(true);
      expect(strings(s.toolSequence)).toBe(true);
      expect(s.toolSequence.length).toBeGreaterThan(0);
      expect(Number.isInteger(s.successCount)).toBe(true);
      expect(Number.isInteger(s.attemptCount)).toBe(true);
      expect(s.successCount).toBeLessThanOrEqual(s.attemptCount);
      expect(typeof s.eta).toBe('number');
      expect(strings(s.sourceSessions)).toBe(true);
      expect(s.sourceSessions.length).toBeGreaterThan(0);
      for (const id of s.sourceSessions) expect(sampleGoals.has(id), `source session ${id}`).toBe(true);
      expect('lastUsedAt' in s).toBe(true);
      expect(s.lastUsedAt === null || typeof s.lastUsedAt === 'string').toBe(true);
    }
    expect(new Set(learned.map((s) => s.name)).size).toBe(learned.length);
  });
});

describe('skillsmith skills show / explain', () => {
  it('name the first ten source sessions and count the rest; explain --all and --json list every one', () => {
    const big = learned.find((s) => s.sourceSessions.length > 10)!;
    expect(big, 'a sample skill with more than ten source sessions').toBeDefined();
    const ids = big.sourceSessions;
    const show = cli(['skills', 'show', big.name, '--db', sharedDb]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      `source sessions (${ids.length}): ${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more (skills explain ${big.name} --all lists every one)`,
    );
    expect(show.stdout).not.toContain(ids[10]);

    const listed = (stdout: string) => [...stdout.matchAll(/^ {2}session (\S+) \[/gm)].map((m) => m[1]);
    const explain = cli(['skills', 'explain', big.name, '--db', sharedDb]);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain(`Learned from ${ids.length} session(s)`);
    expect(listed(explain.stdout)).toHaveLength(10);
    expect(explain.stdout).toContain(`  ... and ${ids.length - 10} more (--all lists every one)`);
    const all = cli(['skills', 'explain', big.name, '--all', '--db', sharedDb]);
    expect(listed(all.stdout).sort()).toEqual([...ids].sort());
    expect(all.stdout).not.toContain('more (--all');
    expect(
      json<{ parents: { sessions: unknown[] } }>(['skills', 'explain', big.name, '--db', sharedDb]).parents.sessions,
    ).toHaveLength(ids.length);

    // A skill with ten or fewer names them all, as before.
    const small = learned.find((s) => s.sourceSessions.length <= 10)!;
    expect(cli(['skills', 'show', small.name, '--db', sharedDb]).stdout).toContain(
      `source sessions: ${small.sourceSessions.join(', ')}`,
    );
  });
});

describe('skillsmith sessions list / show', () => {
  it('lists the stored sessions a page at a time, newest first, as the REST list does', () => {
    const page = json<{
      total: number;
      limit: number;
      offset: number;
      items: { id: string; outcome: string; callCount: number; goal: string }[];
    }>(['sessions', 'list', '--db', sharedDb]);
    expect(page).toMatchObject({ total: sampleLines.length, limit: 50, offset: 0 });
    expect(page.items).toHaveLength(50);
    for (const s of page.items) expect(sampleGoals.has(s.id), s.id).toBe(true);
    // The next page starts where this one stopped, and the pages together hold every session once.
    const rest = json<typeof page>(['sessions', 'list', '--offset', '50', '--limit', '200', '--db', sharedDb]);
    expect(rest.items).toHaveLength(sampleLines.length - 50);
    expect(new Set([...page.items, ...rest.items].map((s) => s.id)).size).toBe(sampleLines.length);

    const text = cli(['sessions', 'list', '--limit', '3', '--db', sharedDb]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      `${sampleLines.length} sessions stored, newest first; 1-3 below (--offset 3 for the next 3):`,
    );
    expect(lines.slice(1)).toEqual(
      page.items
        .slice(0, 3)
        .map((s) =>
          expect.stringMatching(new RegExp(`^  ${escapeRe(s.id)} \\[${s.outcome}, ${s.callCount} calls?\\] `)),
        ),
    );
    expect(cli(['sessions', 'list', '--offset', '1000', '--db', sharedDb]).stdout).toContain(
      'none from --offset 1000 on',
    );
  });

  it('shows one session with each call and its result; an unknown id is an error naming it', () => {
    const [first] = json<{ items: { id: string }[] }>(['sessions', 'list', '--limit', '1', '--db', sharedDb]).items;
    const full = json<{ id: string; goal: string; outcome: string; calls: { tool: string; ok: boolean }[] }>([
      'sessions',
      'show',
      first.id,
      '--db',
      sharedDb,
    ]);
    expect(full.id).toBe(first.id);
    expect(full.goal).toBe(sampleGoals.get(first.id));
    expect(full.calls.length).toBeGreaterThan(0);
    const text = cli(['sessions', 'show', first.id, '--db', sharedDb]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`session ${first.id}\n`);
    expect(text.stdout).toContain(`outcome: ${full.outcome}`);
    const calls = [...text.stdout.matchAll(/^ {2}(\d+)\. (\S+) /gm)].map((m) => [Number(m[1]), m[2]]);
    expect(calls).toEqual(full.calls.map((c, i) => [i + 1, c.tool]));
    const missing = cli(['sessions', 'show', 'no-such-session', '--db', sharedDb]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no session "no-such-session"');
    // By the opaque reference an exported SKILL.md names a source by (parents-episodic).
    const skill = json<{ name: string; skillMd: string; sourceSessions: string[] }>([
      'skills',
      'show',
      'exchange-delivered-order-items',
      '--db',
      sharedDb,
    ]);
    const ref = /^ {2}parents-episodic: (ses-[0-9a-f]{16})/m.exec(skill.skillMd)![1];
    const byRef = json<{ id: string }>(['sessions', 'show', ref, '--db', sharedDb]);
    expect(skill.sourceSessions).toContain(byRef.id);
    expect(cli(['sessions', 'show', 'ses-0000000000000000', '--db', sharedDb]).code).toBe(1);
  });
});

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('skillsmith synthesize', () => {
  it('a second pass right after learn creates nothing and keeps the stable report shape', () => {
    const db = copyOfShared();
    const report = json<Record<string, unknown[]>>(['synthesize', '--db', db]);
    for (const key of ['created', 'updated', 'reinforced', 'superseded', 'skipped'])
      expect(Array.isArray(report[key]), key).toBe(true);
    expect(report.created).toEqual([]);
    expect(report.superseded).toEqual([]);
    for (const s of report.skipped as { cluster: unknown; reason: unknown }[]) {
      expect(typeof s.cluster).toBe('string');
      expect(typeof s.reason).toBe('string');
    }
    expect(list(db).map((s) => s.id)).toEqual(learned.map((s) => s.id));
  });

  it('after an upgrade, says which updates only re-stamped a skill whose procedure reads the same', () => {
    const db = copyOfShared();
    // What an earlier release of the distiller left: the same skills, marked as its own.
    const olderRelease = () => {
      const raw = new Database(db);
      const rows = raw.prepare('SELECT id, version, skill_md FROM skills').all() as {
        id: string;
        version: string;
        skill_md: string;
      }[];
      // The skill row and its version's row alike.
      for (const row of rows) {
        const md = row.skill_md.replace(/learned-by: heuristic@\d+/, 'learned-by: heuristic@1');
        raw.prepare('UPDATE skills SET skill_md = ? WHERE id = ?').run(md, row.id);
        raw
          .prepare('UPDATE skill_versions SET skill_md = ? WHERE skill_id = ? AND version = ?')
          .run(md, row.id, row.version);
      }
      raw.close();
    };
    olderRelease();
    const r = cli(['synthesize', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const updated = r.stdout.split('\n').filter((l) => l.startsWith('  updated '));
    expect(updated).toHaveLength(learned.length);
    const now = list(db);
    for (const s of learned) {
      const version = now.find((x) => x.id === s.id)!.version;
      expect(version).toMatch(/^\d+\.\d+\.1$/);
      expect(updated).toContain(`  updated ${s.name} -> ${version} (same procedure, written by this release)`);
    }
    // The skill's history says so too.
    const first = learned[0];
    const firstVersion = now.find((x) => x.id === first.id)!.version;
    expect(cli(['skills', 'explain', first.name, '--db', db]).stdout).toMatch(
      new RegExp(`^ {2}${firstVersion.replace(/\./g, '\\.')} update \\(same procedure\\) `, 'm'),
    );
    // skills diff shows what the re-stamp changed: the version and the distiller, nothing of the procedure.
    const diff = cli(['skills', 'diff', first.name, '--db', db]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`${first.name}: ${first.version} (`);
    expect(diff.stdout).toContain(`-> ${firstVersion} (update, same procedure)`);
    expect(diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      `-  version: ${first.version}`,
      `+  version: ${firstVersion}`,
      expect.stringMatching(/^- {2}learned-by: heuristic@1$/),
      expect.stringMatching(/^\+ {2}learned-by: heuristic@\d+$/),
    ]);
    // learn says the same in its summary line.
    olderRelease();
    expect(cli(['learn', SAMPLE, '--db', db]).stdout).toContain(
      `0 created, ${learned.length} updated (each with the same procedure, written by this release), 0 reinforced`,
    );
  });

  it('--dry-run on a DB that only had ingest reports created skills and writes none', () => {
    const db = freshDb();
    expect(cli(['ingest', SAMPLE, '--db', db]).code).toBe(0);
    const dry = json<{
      created: { id: string; name: string; version: string; cluster: string }[];
      stats: { dryRun: boolean };
    }>(['synthesize', '--dry-run', '--db', db]);
    expect(dry.created.length).toBeGreaterThan(0);
    for (const c of dry.created) expect(Object.keys(c).sort()).toEqual(['cluster', 'id', 'name', 'version']);
    expect(dry.stats.dryRun).toBe(true);
    const after = cli(['skills', 'list', '--json', '--db', db]);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual([]);
    // The dry run did not move the watermark: a real pass still sees all 89 sessions.
    const real = json<{ stats: { newSessions: number } }>(['synthesize', '--db', db]);
    expect(real.stats.newSessions).toBe(89);
  });

  it('a dry run predicts the real pass: the same skills would be created, under distinct names', () => {
    const db = freshDb();
    expect(cli(['ingest', SAMPLE, '--db', db]).code).toBe(0);
    type Report = { created: { name: string }[]; updated: { name: string }[]; reinforced: { name: string }[] };
    const dry = json<Report>(['synthesize', '--dry-run', '--db', db]);
    const real = json<Report>(['synthesize', '--db', db]);
    const names = (r: Report) => ({
      created: r.created.map((c) => c.name).sort(),
      updated: r.updated.map((c) => c.name).sort(),
      reinforced: r.reinforced.map((c) => c.name).sort(),
    });
    // Two live skills can never share a name, so a faithful dry run cannot report the same name created twice.
    expect(new Set(dry.created.map((c) => c.name)).size).toBe(dry.created.length);
    expect(names(dry)).toEqual(names(real));
  });
});

describe('skillsmith recall', () => {
  it('returns the skill a sample goal was learned from, with the stable JSON shape', () => {
    const first = learned[0];
    const goal = sampleGoals.get(first.sourceSessions[0])!;
    const hits = recall(sharedDb, goal);
    expect(Array.isArray(hits)).toBe(true);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(2);
    const top = hits[0];
    expect(Object.keys(top).sort()).toEqual([
      'body',
      'branches',
      'id',
      'name',
      'similarity',
      'toolSequence',
      'toolsRequired',
    ]);
    // The field skills list --json shows too (empty for a plain procedure).
    expect(top.branches).toEqual(first.branches);
    expect(top.name).toBe(first.name);
    expect(top.id).toBe(first.id);
    expect(top.similarity).toBeGreaterThan(0);
    expect(top.similarity).toBeLessThanOrEqual(1.0001);
    expect(top.toolsRequired).toEqual(first.toolsRequired);
    expect(top.toolSequence).toEqual(first.toolSequence);
    expect(top.body.length).toBeGreaterThan(0);
    for (let i = 1; i < hits.length; i++) expect(hits[i].similarity).toBeLessThanOrEqual(hits[0].similarity);
  });

  it('prints [] for an unrelated goal, and says so in text mode', () => {
    const r = cli(['recall', 'write a haiku about autumn', '--json', '--db', sharedDb]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stdout.trim()).toBe('[]');
    const recalls = () => {
      const raw = new Database(sharedDb, { readonly: true });
      try {
        return (raw.prepare('SELECT COUNT(*) AS n FROM recalls').get() as { n: number }).n;
      } finally {
        raw.close();
      }
    };
    const before = recalls();
    const text = cli(['recall', 'write a haiku about autumn', '--db', sharedDb]);
    expect(text.code).toBe(0);
    // Why nothing matched: the skill the goal came nearest to, its score and the threshold it missed.
    const why =
      /^No skill matches this goal\. The nearest, (\S+), scores (0\.\d{2,}), under the recall threshold (0\.\d{2,}) \(thresholds\.recall\)\.$/m.exec(
        text.stdout,
      );
    expect(why, text.stdout).toBeTruthy();
    const names = (JSON.parse(cli(['skills', 'list', '--json', '--db', sharedDb]).stdout) as { name: string }[]).map(
      (s) => s.name,
    );
    expect(names).toContain(why![1]);
    expect(Number(why![2])).toBeLessThan(Number(why![3]));
    // Looking it up left no trace: no recall was recorded.
    expect(recalls()).toBe(before);
  });

  it('--top-k 1 returns at most one skill, the best one', () => {
    // Find a sample goal that recalls two skills by default, so that the limit is observable.
    let goal: string | null = null;
    let both: RecallJson[] = [];
    for (const s of learned) {
      for (const id of s.sourceSessions.slice(0, 2)) {
        both = recall(sharedDb, sampleGoals.get(id)!);
        if (both.length >= 2) {
          goal = sampleGoals.get(id)!;
          break;
        }
      }
      if (goal) break;
    }
    const probe = goal ?? sampleGoals.get(learned[0].sourceSessions[0])!;
    const one = recall(sharedDb, probe, ['--top-k', '1']);
    expect(one.length).toBeLessThanOrEqual(1);
    if (goal) {
      expect(one).toHaveLength(1);
      expect(one[0].id).toBe(both[0].id);
    }
  });
});

describe('skillsmith skills enable|disable', () => {
  it('a disabled skill is never recalled; enabling it brings it back', () => {
    const db = copyOfShared();
    const skill = learned[0];
    const goals = skill.sourceSessions.slice(0, 4).map((id) => sampleGoals.get(id)!);
    expect(recall(db, goals[0])[0]?.id).toBe(skill.id);

    const off = cli(['skills', 'disable', skill.name, '--db', db]);
    expect(off.code, off.stderr).toBe(0);
    expect(list(db).find((s) => s.id === skill.id)?.enabled).toBe(false);
    for (const g of goals) expect(recall(db, g).map((h) => h.id)).not.toContain(skill.id);

    const on = cli(['skills', 'enable', skill.name, '--db', db]);
    expect(on.code, on.stderr).toBe(0);
    expect(list(db).find((s) => s.id === skill.id)?.enabled).toBe(true);
    expect(recall(db, goals[0])[0]?.id).toBe(skill.id);
  });

  it('disabling an unknown skill fails with a message', () => {
    const db = copyOfShared();
    const r = cli(['skills', 'disable', 'no-such-skill', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no-such-skill/);
  });

  it('a flag the subcommand does not take is refused before anything runs: forget --dry-run forgets nothing', () => {
    const db = copyOfShared();
    const name = learned[0]!.name;
    const r = cli(['skills', 'forget', name, '--dry-run', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('skills forget does not take --dry-run');
    expect(list(db).map((s) => s.name)).toContain(name);
    // Without it, the forget goes through: the refusal was the flag's, not the skill's.
    expect(cli(['skills', 'forget', name, '--db', db]).code).toBe(0);
    expect(list(db).map((s) => s.name)).not.toContain(name);
  });
});

describe('a flag its subcommand does not take', () => {
  const MEMORY = '--db, --namespace, --config';
  /** The bytes of a memory's files (absent ones too): a refused run must not open it, let alone write to it. */
  const files = (db: string) =>
    ['', '-wal', '-shm'].map((x) =>
      existsSync(db + x)
        ? createHash('sha256')
            .update(readFileSync(db + x))
            .digest('hex')
        : null,
    );
  const skill = (i: number) => learned[i]!.name;
  const session = (db: string) => json<{ items: { id: string }[] }>(['sessions', 'list', '--db', db]).items[0]!.id;

  // Each subcommand with a flag its command takes for another one (or another command takes), and what it takes.
  it.each([
    [['skills', 'list', '--force'], '--force', `${MEMORY}, --all, --json`],
    [['skills', 'show', 'S0', '--all'], '--all', `${MEMORY}, --json`],
    [['skills', 'explain', 'S0', '--force'], '--force', `${MEMORY}, --all, --json`],
    [['skills', 'diff', 'S0', '--all'], '--all', `${MEMORY}, --json`],
    [['skills', 'enable', 'S0', '--force'], '--force', `${MEMORY}, --json`],
    [['skills', 'disable', 'S0', '--all'], '--all', `${MEMORY}, --json`],
    [['skills', 'export', '--out', 'OUT', '--revert'], '--revert', `${MEMORY}, --out, --all, --force, --json`],
    [['skills', 'import', IMPORT_FIXTURES, '--all'], '--all', `${MEMORY}, --force, --json`],
    [['skills', 'promote', 'S0', '--force'], '--force', `${MEMORY}, --json`],
    [['skills', 'rename', 'S0', 'by-any-other-name', '--all'], '--all', `${MEMORY}, --force, --json`],
    [['skills', 'forget', 'S0', '--all'], '--all', `${MEMORY}, --json`],
    [['skills', 'forget', 'S0', '--force'], '--force', `${MEMORY}, --json`],
    [['sessions', 'list', '--all'], '--all', `${MEMORY}, --limit, --offset, --json`],
    [['sessions', 'show', 'ID', '--limit', '5'], '--limit', `${MEMORY}, --json`],
    [['sessions', 'forget', 'ID', '--offset', '1'], '--offset', `${MEMORY}, --older-than, --before, --dry-run, --json`],
    [['sessions', 'alike', '--limit', '3'], '--limit', `${MEMORY}, --json`],
    [['facts', 'add', 'refunds go back to the card', '--force'], '--force', `${MEMORY}, --json`],
    [['facts', 'list', '--all'], '--all', `${MEMORY}, --json`],
  ])('skillsmith %j exits 2 naming the flag and the subcommand, and changes nothing', (args, flag, takes) => {
    const db = copyOfShared();
    const out = join(tmp, `refused-export-${dbCounter}`);
    const id = (args as string[]).includes('ID') ? session(db) : '';
    const line = (args as string[]).map((a) => (a === 'S0' ? skill(0) : a === 'OUT' ? out : a === 'ID' ? id : a));
    const where = line.slice(0, 2).join(' ');
    const before = files(db);
    const r = cli([...line, '--db', db]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `skillsmith: ${where} does not take ${flag} (it takes ${takes})\nRun "skillsmith ${where} --help" for usage.\n`,
    ]);
    expect(files(db)).toEqual(before);
    expect(existsSync(out)).toBe(false);
  });

  it('skills forget NAME --all, rename --all and sessions forget ID --offset leave the skill, its name and the session', () => {
    const db = copyOfShared();
    const [name, other] = [skill(0), skill(1)];
    const id = session(db);
    expect(cli(['skills', 'forget', name, '--all', '--db', db]).code).toBe(2);
    expect(cli(['skills', 'rename', other, 'by-any-other-name', '--all', '--db', db]).code).toBe(2);
    expect(cli(['sessions', 'forget', id, '--offset', '1', '--db', db]).code).toBe(2);
    const names = list(db).map((s) => s.name);
    expect(names).toContain(name);
    expect(names).toContain(other);
    expect(names).not.toContain('by-any-other-name');
    expect(cli(['sessions', 'show', id, '--db', db]).code).toBe(0);
    // Without the flag each goes through: the refusal was the flag's.
    expect(cli(['skills', 'forget', name, '--db', db]).code).toBe(0);
    expect(cli(['skills', 'rename', other, 'by-any-other-name', '--db', db]).code).toBe(0);
    expect(cli(['sessions', 'forget', id, '--db', db]).code).toBe(0);
    expect(list(db).map((s) => s.name)).toEqual(
      expect.arrayContaining(['by-any-other-name'].concat(names.filter((n) => n !== name && n !== other))),
    );
    expect(list(db).map((s) => s.name)).not.toContain(name);
  });

  it('SUBCOMMAND --help lists that subcommand and the flags it takes, no other', () => {
    const forget = cli(['skills', 'forget', '--help']);
    expect(forget.code).toBe(0);
    expect(forget.stdout).toMatch(/^Usage: skillsmith skills forget \[options\]\n\n {2}skills forget NAME {2,}delete/);
    expect(forget.stdout).toContain('--db PATH|URL');
    expect(forget.stdout).toContain('--json');
    expect(forget.stdout).not.toMatch(/--all|--force|--out|skills list|skills rename/);
    expect(forget.stdout).toContain('Every skills subcommand: skillsmith skills --help');
    const listing = cli(['sessions', 'list', '--help']).stdout;
    expect(listing).toMatch(
      /^Usage: skillsmith sessions list \[options\]\n\n {2}sessions list \[--limit N\] \[--offset N\]/,
    );
    expect(listing).not.toContain('sessions forget');
    // The command's help still lists every subcommand, and says how to get one.
    const all = cli(['skills', '--help']).stdout;
    for (const sub of [
      'list',
      'show',
      'explain',
      'diff',
      'enable|disable',
      'export',
      'import',
      'promote',
      'rename',
      'forget',
    ])
      expect(all).toContain(`  skills ${sub}`);
    expect(all).toContain('One subcommand and only its options: skillsmith skills SUBCOMMAND --help');
  });
});

describe('skillsmith skills export', () => {
  it('writes DIR/<name>/SKILL.md for every listed skill in the agentskills.io shape', () => {
    const out = join(tmp, 'export');
    const r = cli(['skills', 'export', '--out', out, '--db', sharedDb]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(learned.map((s) => s.name).sort());
    for (const s of learned) {
      const path = join(out, s.name, 'SKILL.md');
      expect(existsSync(path), path).toBe(true);
      const text = readFileSync(path, 'utf8');
      expect(text.startsWith('---\n')).toBe(true);
      const end = text.indexOf('\n---\n', 4);
      expect(end).toBeGreaterThan(0);
      const fm = parseYaml(text.slice(4, end)) as Record<string, unknown>;
      expect(fm.name).toBe(basename(join(path, '..')));
      expect(fm.name).toBe(s.name);
      expect(text.slice(4, end)).toMatch(new RegExp(`^name: ${s.name}$`, 'm'));
      expect('version' in fm).toBe(false);
      expect(text.slice(4, end)).not.toMatch(/^version:/m);
      expect(typeof fm.license).toBe('string');
      expect(typeof fm.description).toBe('string');
      const metadata = fm.metadata as Record<string, unknown>;
      expect(typeof metadata).toBe('object');
      expect(String(metadata.version)).toBe(s.version);
      expect(text.slice(end + 5).trim().length).toBeGreaterThan(0);
    }
  });
});

describe('skillsmith skills list on an empty memory', () => {
  it('says how many sessions a skill needs, the number the defaults use', () => {
    const r = cli(['skills', 'list', '--db', join(tmp, 'empty-list.db')]);
    expect(r.code).toBe(0);
    const needed = loadConfig({}, {}).synthesis.minOccurrences;
    expect(r.stdout).toContain(`a skill needs at least ${needed} similar successful sessions`);
  });

  it('says the number this memory is configured with, not the default', () => {
    const config = join(tmp, 'three-sessions.json');
    writeFileSync(config, JSON.stringify({ synthesis: { minOccurrences: 3 } }));
    const r = cli(['skills', 'list', '--db', join(tmp, 'empty-list-3.db'), '--config', config]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('a skill needs at least 3 similar successful sessions');
  });
});

describe('a command that only reads, on a memory path with no file yet', () => {
  it('answers as an empty memory would, says so, and creates no file (a hook stays silent); a change fails', () => {
    const dir = join(tmp, 'no-memory-here');
    mkdirSync(dir);
    const db = join(dir, 'mistyped.db');
    const note = `skillsmith: no memory at ${db} yet (nothing was ingested or learned there): answered as an empty memory, and no file was created`;
    const list = cli(['skills', 'list', '--db', db]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('No skills learned yet');
    expect(list.stderr).toContain(note);
    const json = cli(['recall', 'I want to return an item', '--json', '--db', db]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(json.stderr).toContain(note);
    const text = cli(['recall', 'I want to return an item', '--db', db], tmp, { SKILLSMITH_RECALL_DAEMON: '0' });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('No skill matches this goal.');
    const show = cli(['skills', 'show', 'return-delivered-order-items', '--db', db]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('no skill named "return-delivered-order-items"');
    const sessions = cli(['sessions', 'list', '--db', db]);
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain('No sessions stored yet');
    expect(sessions.stderr).toContain(note);
    expect(cli(['sessions', 'show', 'ses-1', '--db', db]).code).toBe(1);
    const hook = spawnSync(process.execPath, [CLI, 'recall', '--hook', '--db', db], {
      cwd: tmp,
      input: JSON.stringify({ prompt: 'I want to return an item' }),
      encoding: 'utf8',
    });
    expect(hook.status).toBe(0);
    expect(hook.stdout).toBe('');
    expect(hook.stderr).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    // A run that changes something stored (a skill, a session) has nothing to change there: it fails, creating nothing.
    const gone = `skillsmith: no memory at ${db} (nothing was ingested or learned there), so nothing stored to change; no file was created`;
    for (const args of [
      ['feedback', 'fix-phone-service', 'pass'],
      ['outcome', 'ses-1', 'success'],
      ['skills', 'disable', 'fix-phone-service'],
      ['skills', 'forget', 'fix-phone-service'],
      ['sessions', 'forget', 'ses-1'],
      ['compile', '--cue', 'cancel my order'],
    ]) {
      const r = cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(gone);
    }
    const imported = cli(['skills', 'import', join(dir, 'no-such-folder'), '--db', db]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain(
      `skills import: cannot read "${join(dir, 'no-such-folder')}": no such file or directory`,
    );
    // A pass has nothing to learn from there either.
    const pass = cli(['synthesize', '--db', db]);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toContain('Nothing new to learn.');
    expect(readdirSync(dir)).toEqual([]);
    // A command that stores creates the memory it was pointed at.
    expect(cli(['facts', 'add', 'orders ship from Texas', '--db', db]).code).toBe(0);
    expect(existsSync(db)).toBe(true);
  });
});

describe('skillsmith skills export into a file', () => {
  it('is an error naming the path (exit 1) and leaves the file as it was', () => {
    const file = join(tmp, 'not-a-folder.txt');
    writeFileSync(file, 'keep me\n');
    const r = cli(['skills', 'export', '--out', file, '--db', sharedDb]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot export into ${file}: it is a file, not a folder`);
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });
});

describe('skillsmith skills list --all', () => {
  it('shows a superseded skill as superseded, naming the skill that replaced it', () => {
    const db = copyOfShared();
    const [old, next] = learned;
    const raw = new Database(db);
    raw.prepare('UPDATE skills SET superseded_by = ? WHERE id = ?').run(next.id, old.id);
    raw.close();
    const live = cli(['skills', 'list', '--db', db]);
    expect(live.stdout).not.toMatch(new RegExp(`^${old.name} `, 'm'));
    const all = cli(['skills', 'list', '--all', '--db', db]);
    const row = all.stdout.split('\n').find((l) => l.startsWith(`${old.name} `));
    expect(row).toMatch(new RegExp(`  superseded by ${next.name}  `));
    expect(all.stdout.split('\n').find((l) => l.startsWith(`${next.name} `))).not.toMatch(/superseded/);
  });
});

describe('skillsmith skills import / promote', () => {
  const GAIA = 'triage-support-ticket';
  const SPECTOR = 'null-check-auth-validator';

  it('imports GAIA and Spector skills into the external corpus: listed, never recalled until promoted', () => {
    const db = copyOfShared();
    const imp = cli(['skills', 'import', IMPORT_FIXTURES, '--db', db]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toMatch(/Imported 2 skill/);

    const all = list(db, ['--all']);
    const gaia = all.find((s) => s.name === GAIA);
    const spector = all.find((s) => s.name === SPECTOR);
    expect(gaia?.corpus).toBe('external');
    expect(spector?.corpus).toBe('external');
    expect(gaia?.toolsRequired).toEqual(['query_documents', 'read_file', 'remember']);
    expect(gaia?.version).toBe('1.0.0');
    expect(spector?.toolsRequired).toEqual(['http_request', 'edit_file', 'run_tests']);
    // The learned skills are all still there.
    for (const s of learned) expect(all.map((x) => x.id)).toContain(s.id);

    for (const s of [gaia!, spector!]) {
      expect(recall(db, s.description).map((h) => h.name)).not.toContain(s.name);
      expect(recall(db, s.description, ['--top-k', '5']).map((h) => h.name)).not.toContain(s.name);
    }

    const promoted = cli(['skills', 'promote', GAIA, '--db', db]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const hits = recall(db, gaia!.description);
    expect(hits[0]?.name).toBe(GAIA);
    expect(hits[0]?.toolsRequired).toEqual(['query_documents', 'read_file', 'remember']);
    expect(list(db, ['--all']).find((s) => s.name === GAIA)?.corpus).toBe('internal');
    // The other import is still not recallable.
    expect(recall(db, spector!.description).map((h) => h.name)).not.toContain(SPECTOR);

    // Exported imports keep the canonical shape too.
    const out = join(tmp, 'export-after-promote');
    expect(cli(['skills', 'export', '--out', out, '--db', db]).code).toBe(0);
    const md = readFileSync(join(out, GAIA, 'SKILL.md'), 'utf8');
    expect(md).toMatch(/^name: triage-support-ticket$/m);
    expect(md).not.toMatch(/^version:/m);
  });

  it('skills list shows imported skills in the external corpus, beside the learned ones', () => {
    const db = copyOfShared();
    expect(cli(['skills', 'import', IMPORT_FIXTURES, '--db', db]).code).toBe(0);
    const listed = list(db);
    expect(
      listed
        .filter((s) => s.corpus === 'external')
        .map((s) => s.name)
        .sort(),
    ).toEqual([GAIA, SPECTOR].sort());
    expect(
      listed
        .filter((s) => s.corpus === 'internal')
        .map((s) => s.name)
        .sort(),
    ).toEqual(learned.map((s) => s.name).sort());
  });

  it('promoting a name that was never imported fails', () => {
    const db = copyOfShared();
    const r = cli(['skills', 'promote', 'never-imported', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/never-imported/);
  });
});

describe('namespaces', () => {
  it('skills learned in namespace a are never listed or recalled in namespace b', () => {
    const db = freshDb();
    const learnA = cli(['learn', SAMPLE, '--db', db, '--namespace', 'a']);
    expect(learnA.code, learnA.stderr).toBe(0);
    const inA = list(db, ['--namespace', 'a']);
    expect(inA.length).toBeGreaterThan(0);

    expect(list(db, ['--namespace', 'b'])).toEqual([]);
    expect(list(db, ['--namespace', 'b', '--all'])).toEqual([]);
    expect(list(db)).toEqual([]); // the default namespace is another namespace too
    // Goals that recall something in a recall nothing in b.
    const recalledInA = [...sampleGoals.values()]
      .slice(0, 12)
      .filter((goal) => recall(db, goal, ['--namespace', 'a']).length > 0);
    expect(recalledInA.length).toBeGreaterThan(2);
    for (const goal of recalledInA.slice(0, 3)) expect(recall(db, goal, ['--namespace', 'b'])).toEqual([]);
    const show = cli(['skills', 'show', inA[0].name, '--db', db, '--namespace', 'b']);
    expect(show.code).toBe(1);

    // The same file in namespace b is 89 new sessions, not duplicates of a's.
    const ingestB = cli(['ingest', SAMPLE, '--db', db, '--namespace', 'b']);
    expect(ingestB.stdout).toMatch(/\b89 sessions stored, 0 already present\b/);
    expect(countSessions(db, 'a')).toBe(89);
    expect(countSessions(db, 'b')).toBe(89);
  });
});

describe('configuration', () => {
  it('reads ./skillsmith.config.json from the working directory and names it when a key is bad', () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    writeFileSync(join(cwd, 'skillsmith.config.json'), JSON.stringify({ embedder: { provider: 'word2vec' } }));
    const r = cli(['recall', 'cancel my order', '--db', join(cwd, 'memory.db')], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid configuration in ${join(cwd, 'skillsmith.config.json')}`);
    expect(r.stderr).toMatch(/embedder\.provider/);
    expect(existsSync(join(cwd, 'memory.db'))).toBe(false);
  });

  it('with SKILLSMITH_LLM_FALLBACK=heuristic a pass whose model is down learns with the heuristic distiller and says so', async () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    const env = {
      SKILLSMITH_DISTILLER: 'llm',
      SKILLSMITH_LLM_BASE_URL: `http://127.0.0.1:${await deadPort()}/v1`,
      SKILLSMITH_LLM_MODEL: 'qwen2.5:7b-instruct',
      SKILLSMITH_LLM_FALLBACK: 'heuristic',
    };
    const r = cli(['learn', SAMPLE, '--db', join(cwd, 'memory.db'), '--json'], cwd, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /the model distiller was unavailable, so this pass used heuristic.* \(llm\.fallback\): .*127\.0\.0\.1/,
    );
    const out = JSON.parse(r.stdout) as { synthesis: { fallback?: { from: string; to: string } }; skills: unknown[] };
    expect(out.synthesis.fallback?.from).toBe('llm@2:openai:qwen2.5:7b-instruct');
    expect(out.skills.length).toBeGreaterThan(0);
  });

  it('a pass whose model is down (no fallback) exits 1 and says first that the sessions were stored', async () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    const env = {
      SKILLSMITH_DISTILLER: 'llm',
      SKILLSMITH_LLM_BASE_URL: `http://127.0.0.1:${await deadPort()}/v1`,
      SKILLSMITH_LLM_MODEL: 'qwen2.5:7b-instruct',
    };
    const r = cli(['learn', SAMPLE, '--db', join(cwd, 'memory.db')], cwd, env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Ingested .*tau-sample\.jsonl: 89 new sessions, 0 already present\./m);
    expect(r.stdout).toContain('The learning pass failed (below): these sessions are stored');
    expect(r.stderr).toMatch(/is unavailable/);
  });

  it('SKILLSMITH_* variables configure the back ends: a distiller without its server is refused before anything is stored', () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    const r = cli(['learn', SAMPLE, '--db', join(cwd, 'memory.db')], cwd, { SKILLSMITH_DISTILLER: 'llm' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/llm\.baseUrl is not set/);
    expect(existsSync(join(cwd, 'memory.db'))).toBe(false);
  });

  it('a misconfigured judge is a configuration error like a misconfigured distiller: exit code 2, saying what to set', () => {
    const cwd = mkdtempSync(join(tmp, 'cwd-'));
    const r = cli(['ingest', SAMPLE, '--judge', 'llm', '--db', join(cwd, 'memory.db')], cwd);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/capture\.judge\.mode is "llm" but no model is configured/);
  });
});

describe('usage', () => {
  const usageHint = /--help/;

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['recall'], /recall needs a GOAL/],
    [['ingest'], /ingest needs at least one FILE/],
    [['learn'], /needs at least one FILE/],
    [
      ['skills'],
      /skills needs a subcommand: list, show, explain, diff, enable, disable, export, import, promote, rename, edit or forget/,
    ],
    [['skills', 'lst'], /unknown skills subcommand "lst" \(did you mean "list"\?\)/],
    [['sessions'], /sessions needs a subcommand: list, show, forget or alike/],
    [['sessions', 'lst'], /unknown sessions subcommand "lst" \(did you mean "list"\?\)/],
    [['sessions', 'forget'], /usage: skillsmith sessions forget ID/],
    [['sessions', 'show'], /usage: skillsmith sessions show ID/],
    [['sessions', 'alike', 'up-zod'], /usage: skillsmith sessions alike/],
    [['sessions', 'list', '--limit', '0'], /--limit must be a whole number from 1 to 200, not "0"/],
    [['sessions', 'list', '--offset', 'ten'], /--offset must be a whole number, not "ten"/],
    [['feedback', 'fix-phone-service'], /usage: skillsmith feedback NAME/],
    [['outcome', 'ses-1', 'maybe'], /usage: skillsmith outcome SESSION success\|failure/],
    [['facts'], /facts needs a subcommand: add or list/],
    [['facts', 'add'], /usage: skillsmith facts add "TEXT"/],
    [['compile'], /usage: skillsmith compile --sessions/],
    [['synthesize', 'now'], /synthesize takes no arguments \(got "now"\)/],
    [['skills', 'show'], /skills show NAME/],
    [['skills', 'disable'], /skills disable NAME/],
    [['skills', 'export'], /skills export --out DIR/],
    [['skills', 'import'], /skills import DIR/],
    [['skills', 'promote'], /skills promote NAME/],
    [['skills', 'diff'], /skills diff NAME \[FROM \[TO\]\]/],
    [['skills', 'diff', 'fix-phone-service', '1.0.0', '1.1.0', '1.2.0'], /skills diff NAME \[FROM \[TO\]\]/],
    [['recall', 'cancel my order', '--top-k', '0'], /--top-k/],
    [['recall', 'cancel my order', '--tools', ','], /--tools needs the names of the tools/],
    [['ingest', SAMPLE, '--format', 'xml'], /--format/],
    [['list', '--bogus-flag'], /unknown flag --bogus-flag\n/],
    [['recall', 'cancel my order', '--topk', '3'], /unknown flag --topk \(did you mean --top-k\?\)/],
    [['recall', 'cancel my order', '--jsno'], /unknown flag --jsno \(did you mean --json\?\)/],
    [['recal', 'cancel my order'], /unknown command "recal" \(did you mean "recall"\?\)/],
    // A flag another command takes is refused, not dropped: skills forget has no dry run.
    [['skills', 'forget', 'fix-phone-service', '--dry-run'], /skills forget does not take --dry-run \(it takes --db, /],
    // A subcommand takes its own flags, not every one of its command's: forget has no --all.
    [['skills', 'forget', 'fix-phone-service', '--all'], /skills forget does not take --all \(it takes --db, /],
    [['serve', '--format', 'codex'], /serve does not take --format/],
    [['learn', SAMPLE, '--dry-run'], /learn does not take --dry-run/],
    [['recall', 'cancel my order', '--out', 'x', '--all'], /recall does not take --out, --all/],
  ])('skillsmith %j exits 2 with a usage hint on stderr', (args, message) => {
    const db = freshDb();
    const r = cli([...(args as string[]), '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).toMatch(usageHint);
    expect(r.stdout).toBe('');
    // A usage error is said before any memory opens: nothing is created at --db, nor is its absence mentioned.
    expect(existsSync(db)).toBe(false);
    expect(r.stderr).not.toContain('no memory at');
  });

  it('--version prints the package version and exits 0', () => {
    const r = cli(['--version']);
    expect(r.code).toBe(0);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout).toBe(`skillsmith ${version}\n`);
    expect(cli(['--help']).stdout).toContain('--version');
  });

  it('with no command at all, exits 2 with a usage hint on stderr', () => {
    const r = cli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Usage: skillsmith|--help/);
  });

  it('--help and -h exit 0 and print the usage', () => {
    for (const flag of ['--help', '-h']) {
      const r = cli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: skillsmith <command>');
      for (const cmd of [
        'ingest',
        'learn',
        'synthesize',
        'recall',
        'skills list',
        'skills export',
        'skills import',
        'skills promote',
      ]) {
        expect(r.stdout).toContain(cmd);
      }
    }
    expect(cli(['recall', '--help']).code).toBe(0);
  });

  it('COMMAND --help prints that command and the options, not every command', () => {
    const r = cli(['ingest', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: skillsmith ingest \[options\]\n\n {2}ingest FILE\|DIR\.\.\. /);
    expect(r.stdout).toContain('--format F');
    expect(r.stdout).not.toContain('skills export --out');
    expect(r.stdout).toContain('Every command: skillsmith --help');
    // serve lists its own options, none of ingest's.
    const serve = cli(['serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^Usage: skillsmith serve \[options\]\n\n {2}serve \[--host H\] \[--port N\]/);
    expect(serve.stdout).toContain('--db PATH|URL');
    expect(serve.stdout).not.toMatch(/--format|--judge|--json/);
    // mcp says its listening flags, and refuses them without --http instead of serving stdio regardless.
    expect(cli(['mcp', '--help']).stdout).toMatch(
      /mcp \[--http \[--host H\] \[--port N\] \[--token T\] \[--require-token\]\]/,
    );
    const stray = cli(['mcp', '--port', '7713']);
    expect([stray.code, stray.stderr.split('\n')[0]]).toEqual([
      2,
      'skillsmith: --host, --port, --token and --require-token go with --http (over stdio nothing listens)',
    ]);
  });
});
