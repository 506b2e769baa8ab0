// A team whose memory is a PostgreSQL database, trying the day's features through the built CLI: retention
// (sessions forget --older-than / --before, capture.retentionDays) forgets exactly what it forgets on SQLite, and
// leaves no trace of what it forgot in any table; a feedback key sent by two CLI processes at once counts once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, type Run, runBuiltCli } from './support/built-cli.js';
import {
  SECRET_GOAL_WORD,
  SECRET_RESULT,
  tracesInDatabase,
  tracesInFile,
  writeDatedSessions,
} from './support/forget-fixture.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { AFTER, BEFORE } from './support/address-goals.js';

let server: PgServer;
let home: string;

beforeAll(async () => {
  server = await startPgServer();
  home = mkdtempSync(join(tmpdir(), 'skillsmith-pg-today-'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const env = () => ({ HOME: join(home, 'user'), XDG_CACHE_HOME: join(home, 'user', '.cache') });

function cli(args: string[]): Run {
  return runBuiltCli(args, { cwd: home, env: env(), unset: ['SKILLSMITH_TOKEN'] });
}

/** The built CLI started without waiting for it, as a second terminal or a second agent host runs it. */
function cliAsync(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const base: NodeJS.ProcessEnv = { ...process.env, ...env() };
    delete base.SKILLSMITH_DB;
    delete base.SKILLSMITH_CONFIG;
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: home, env: base });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function json<T>(args: string[]): T {
  const r = cli([...args, '--json']);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

const ids = (db: string) =>
  json<{ items: { id: string }[] }>(['sessions', 'list', '--db', db])
    .items.map((s) => s.id)
    .sort();

interface Retention {
  before: string;
  dryRun: boolean;
  forgotten: { id: string; at: string; ref: string | null; calls: number | null; skills: string[] }[];
  undated: string[];
}

describe('retention on PostgreSQL, as on SQLite', () => {
  it('a dry run changes nothing; --older-than forgets the same sessions with their traces, the skill keeps markers', async () => {
    const url = await server.createDatabase();
    const sqlite = join(home, 'retention.db');
    const file = join(home, 'dated.jsonl');
    writeDatedSessions(file, 'rt');
    for (const db of [url, sqlite]) {
      const learned = cli(['learn', file, '--db', db]);
      expect(learned.code, learned.stderr).toBe(0);
    }
    // The learn pass read the secret before anything was forgotten.
    expect(await tracesInDatabase(url, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual(
      [SECRET_RESULT, SECRET_GOAL_WORD].sort(),
    );
    const skillOf = (db: string) => json<{ name: string }[]>(['skills', 'list', '--db', db]).map((s) => s.name);
    const [skill] = skillOf(url);
    expect(skillOf(url)).toEqual(skillOf(sqlite));
    expect(skill).toBeDefined();

    const dry = (db: string) => json<Retention>(['sessions', 'forget', '--older-than', '90d', '--dry-run', '--db', db]);
    const dryPg = dry(url);
    expect(dryPg).toMatchObject({ dryRun: true, undated: ['rt-3'] });
    expect(dryPg.forgotten.map((f) => f.id)).toEqual(['rt-0', 'rt-1']);
    expect(dryPg.forgotten.every((f) => f.ref === null && f.calls === null)).toBe(true);
    const dryLite = dry(sqlite);
    expect(dryPg.forgotten.map(({ id, at }) => ({ id, at }))).toEqual(
      dryLite.forgotten.map(({ id, at }) => ({ id, at })),
    );
    expect(dryPg.undated).toEqual(dryLite.undated);
    // The dry run forgot nothing: every session, and the secret, are still there.
    expect(ids(url)).toEqual(['rt-0', 'rt-1', 'rt-2', 'rt-3']);
    expect(await tracesInDatabase(url, [SECRET_GOAL_WORD, SECRET_RESULT])).toHaveLength(2);
    expect(cli(['skills', 'explain', skill!, '--db', url]).stdout).not.toMatch(/parent session\(s\) forgotten/);

    const forget = (db: string) => json<Retention>(['sessions', 'forget', '--older-than', '90d', '--db', db]);
    const pgDone = forget(url);
    const liteDone = forget(sqlite);
    const shape = (r: Retention) => ({
      dryRun: r.dryRun,
      undated: r.undated,
      forgotten: r.forgotten.map(({ id, at, calls, skills }) => ({ id, at, calls, skills })),
    });
    expect(shape(pgDone)).toEqual(shape(liteDone));
    expect(shape(pgDone).forgotten).toEqual([
      { id: 'rt-0', at: expect.any(String), calls: 3, skills: [skill] },
      { id: 'rt-1', at: expect.any(String), calls: 3, skills: [skill] },
    ]);
    expect(pgDone.forgotten.every((f) => /^ses-/.test(f.ref ?? ''))).toBe(true);
    expect(ids(url)).toEqual(['rt-2', 'rt-3']);
    expect(ids(sqlite)).toEqual(['rt-2', 'rt-3']);
    expect(await tracesInDatabase(url, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);
    expect(tracesInFile(sqlite, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);
    const explain = cli(['skills', 'explain', skill!, '--db', url]);
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(/2 parent session\(s\) forgotten/);
    expect(explain.stdout).not.toContain(SECRET_GOAL_WORD);
    // The skill is still recalled for its task.
    const recall = json<{ name: string }[]>(['recall', 'Cancel my pending order #W5555', '--db', url]);
    expect(recall.map((r) => r.name)).toContain(skill);

    // --before a date forgets the one that ended two days ago; the undated one is kept, on both.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const db of [url, sqlite]) {
      const before = json<Retention>(['sessions', 'forget', '--before', tomorrow, '--db', db]);
      expect(before.forgotten.map((f) => f.id)).toEqual(['rt-2']);
      expect(before.undated).toEqual(['rt-3']);
      expect(ids(db)).toEqual(['rt-3']);
    }
  }, 180_000);

  it('capture.retentionDays in a --config file makes learn forget them after its pass', async () => {
    const url = await server.createDatabase();
    const file = join(home, 'dated-config.jsonl');
    const config = join(home, 'retention.json');
    writeDatedSessions(file, 'rc');
    writeFileSync(config, JSON.stringify({ capture: { retentionDays: 30 } }));
    const learned = cli(['learn', file, '--db', url, '--config', config, '--json']);
    expect(learned.code, learned.stderr).toBe(0);
    const report = JSON.parse(learned.stdout);
    const synthesis = report.synthesis ?? report;
    // The pass learned from all four before the old ones went.
    expect(synthesis.created).toHaveLength(1);
    expect(synthesis.retention).toEqual({ before: expect.any(String), sessions: 2, undated: 1 });
    expect(Date.parse(synthesis.retention.before)).toBeGreaterThan(Date.now() - 31 * 86_400_000);
    expect(Date.parse(synthesis.retention.before)).toBeLessThan(Date.now() - 29 * 86_400_000);
    expect(ids(url)).toEqual(['rc-2', 'rc-3']);
    expect(await tracesInDatabase(url, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);
    const name = synthesis.created[0].name as string;
    expect(cli(['skills', 'explain', name, '--db', url]).stdout).toMatch(/2 parent session\(s\) forgotten/);

    // The text report says it too.
    const other = await server.createDatabase();
    const text = cli(['learn', file, '--db', other, '--config', config]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /retention \(capture\.retentionDays\): 2 sessions that ended \(or, still open, were last active\) before \S+ forgotten; 1 kept, their stored time reads as no date/,
    );
    expect(ids(other)).toEqual(['rc-2', 'rc-3']);
  }, 180_000);
});

interface Feedback {
  before: { eta: number; trialsAttempted: number };
  after: { eta: number; trialsAttempted: number; trialsPassed: number };
  repeated: boolean;
}

describe('feedback --id on PostgreSQL', () => {
  it('the same key sent from two CLI processes at once counts once; a third run says so; another signal is refused', async () => {
    const url = await server.createDatabase();
    const file = join(home, 'feedback.jsonl');
    writeDatedSessions(file, 'fb');
    expect(cli(['learn', file, '--db', url]).code).toBe(0);
    const [skill] = json<{ name: string; trialsAttempted: number; trialsPassed: number; judgedTrials: number }[]>([
      'skills',
      'list',
      '--db',
      url,
    ]);
    expect(skill).toBeDefined();
    const start = { attempted: skill!.trialsAttempted, passed: skill!.trialsPassed };

    const args = ['feedback', skill!.name, 'pass', '--id', 'ci-run-4812', '--db', url, '--json'];
    const both = await Promise.all([cliAsync(args), cliAsync(args)]);
    for (const r of both) expect(r.code, r.stderr).toBe(0);
    const answers = both.map((r) => JSON.parse(r.stdout) as Feedback);
    expect(answers.map((a) => a.repeated).sort()).toEqual([false, true]);
    const counted = answers.find((a) => !a.repeated)!;
    expect(counted.after.trialsAttempted).toBe(start.attempted + 1);

    const listed = () =>
      json<{ name: string; trialsAttempted: number; trialsPassed: number; judgedTrials: number }[]>([
        'skills',
        'list',
        '--db',
        url,
      ]).find((s) => s.name === skill!.name)!;
    expect(listed()).toMatchObject({
      trialsAttempted: start.attempted + 1,
      trialsPassed: start.passed + 1,
      judgedTrials: skill!.judgedTrials,
    });

    const third = cli(['feedback', skill!.name, 'pass', '--id', 'ci-run-4812', '--db', url]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/this feedback was given before under this --id; not counted again/);
    const other = cli(['feedback', skill!.name, 'fail', '--id', 'ci-run-4812', '--db', url]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/this feedback id was given before/);
    expect(listed()).toMatchObject({ trialsAttempted: start.attempted + 1, trialsPassed: start.passed + 1 });

    // Four hosts retrying at once under a new key: one counts. Two signals at once under one key: one is refused.
    const four = await Promise.all(
      Array.from({ length: 4 }, () =>
        cliAsync(['feedback', skill!.name, 'pass', '--id', 'ci-run-4814', '--db', url, '--json']),
      ),
    );
    for (const r of four) expect(r.code, r.stderr).toBe(0);
    expect(four.map((r) => (JSON.parse(r.stdout) as Feedback).repeated).sort()).toEqual([false, true, true, true]);
    expect(listed().trialsAttempted).toBe(start.attempted + 2);
    const mixed = await Promise.all(
      ['pass', 'fail'].map((signal) => cliAsync(['feedback', skill!.name, signal, '--id', 'ci-run-4815', '--db', url])),
    );
    expect(mixed.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(mixed.find((r) => r.code === 1)!.stderr).toMatch(/this feedback id was given before/);
    expect(listed().trialsAttempted).toBe(start.attempted + 3);

    // Another key is another feedback: it counts.
    const fresh = json<Feedback>(['feedback', skill!.name, 'pass', '--id', 'ci-run-4813', '--db', url]);
    expect(fresh.repeated).toBe(false);
    expect(listed().trialsAttempted).toBe(start.attempted + 4);

    // One key sent for two skills by two hosts at once: one counts, the other is refused and says why.
    const address = join(home, 'feedback-address.jsonl');
    addressChanges(address, 'update_address', BEFORE, 0, 4);
    expect(cli(['learn', address, '--db', url]).code).toBe(0);
    const names = json<{ name: string }[]>(['skills', 'list', '--db', url]).map((s) => s.name);
    expect(names).toHaveLength(2);
    const split = await Promise.all(
      names.map((name) => cliAsync(['feedback', name, 'pass', '--id', 'ci-run-4816', '--db', url])),
    );
    expect(split.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(split.find((r) => r.code === 1)!.stderr).toMatch(/this feedback id was given before, with trial\.pass for /);
  }, 180_000);
});

/** `count` address changes with `tool` as interchange JSONL, six hours apart from `from` on. */
function addressChanges(file: string, tool: string, words: ((o: string) => string)[], first: number, count: number) {
  const t0 = Date.parse('2026-11-02T09:00:00Z');
  const lines = Array.from({ length: count }, (_, k) => {
    const n = first + k;
    const order = `W${1000 + n}`;
    const at = (min: number) => new Date(t0 + n * 6 * 3_600_000 + min * 60_000).toISOString();
    return JSON.stringify({
      session_id: `addr-${n}`,
      goal: words[n % words.length]!(order),
      success: true,
      started_at: at(0),
      ended_at: at(1),
      steps: [
        {
          tool: 'get_order',
          args: { order_id: order },
          result: JSON.stringify({ id: order, status: 'pending', address: '1 Old Road' }),
          ok: true,
        },
        {
          tool,
          args: { order_id: order, address: '31 Cedar Court' },
          result: JSON.stringify({ id: order, status: 'pending', address: '31 Cedar Court' }),
          ok: true,
        },
      ],
    });
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

interface Listed {
  id: string;
  name: string;
  toolSequence: string[];
  supersededBy: string | null;
}

describe('a renamed tool on PostgreSQL, as on SQLite', () => {
  it('the pass supersedes the old tool’s skill by the one learned from the renamed calls', async () => {
    const url = await server.createDatabase();
    const sqlite = join(home, 'rename.db');
    const old = join(home, 'update-address.jsonl');
    const renamed = join(home, 'set-address.jsonl');
    addressChanges(old, 'update_address', BEFORE, 0, 7);
    addressChanges(renamed, 'set_address', AFTER, 7, 4);
    const reports = [];
    for (const db of [url, sqlite]) {
      expect(cli(['learn', old, '--db', db]).code).toBe(0);
      const [first] = json<Listed[]>(['skills', 'list', '--db', db]);
      expect(first!.toolSequence).toEqual(['get_order', 'update_address']);
      expect(cli(['ingest', renamed, '--db', db]).code).toBe(0);
      const report = json<{ superseded: { id: string; name: string; supersedes: string; renamed?: unknown }[] }>([
        'synthesize',
        '--db',
        db,
      ]);
      expect(report.superseded).toEqual([
        expect.objectContaining({ supersedes: first!.id, renamed: [{ from: 'update_address', to: 'set_address' }] }),
      ]);
      const all = json<Listed[]>(['skills', 'list', '--all', '--db', db]);
      const fresh = all.find((s) => s.id === report.superseded[0]!.id)!;
      expect(fresh.toolSequence).toEqual(['get_order', 'set_address']);
      expect(all.find((s) => s.id === first!.id)!.supersededBy).toBe(fresh.id);
      expect(json<Listed[]>(['skills', 'list', '--db', db]).map((s) => s.id)).toEqual([fresh.id]);
      const show = cli(['skills', 'show', first!.name, '--db', db]);
      expect(show.stdout).toContain('(the same procedure: update_address is now set_address)');
      const recalled = json<{ name: string }[]>([
        'recall',
        BEFORE[1]!('W9002'),
        '--tools',
        'get_order,set_address',
        '--db',
        db,
      ]);
      expect(recalled.map((s) => s.name)).toEqual([fresh.name]);
      reports.push({ names: all.map((s) => s.name).sort(), superseded: report.superseded.map((s) => s.name) });
    }
    expect(reports[0]).toEqual(reports[1]);
  }, 180_000);
});
