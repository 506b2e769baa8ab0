// The persisted recall index, across real processes on a real SQLite file: a new process loads the index
// instead of rebuilding it, and a stale, truncated, corrupt or half-written file never yields a wrong recall.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { readTau, TAU_DEV, tempDbPath, toSession } from './support/tau.js';

const root = new URL('..', import.meta.url).pathname;
const child = `${root}test/fixtures/recall-child.mjs`;
// A graph from 3 skills on, so the few learned skills go through the HNSW index and its graph file.
const config = { recall: { annFrom: 3 } };
const env = { ...process.env, SKILLSMITH_TEST_CONFIG: JSON.stringify(config) };

let db: string;
let goals: string[];
let reference: [string, number][][];

function recallInChild(path = db): [string, number][][] {
  const out = execFileSync(process.execPath, [child, path, 'recall', JSON.stringify(goals)], { env, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

function indexFiles(path = db): string[] {
  const dir = dirname(path);
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${basename(path)}.recall-`))
    .map((f) => join(dir, f));
}

/**
 * The same skills in the same order for every goal, with the same similarities to 3e-4: the child recalls through
 * the HNSW graph, which holds half-precision vectors (HnswOptions.quantization), the reference by the exact scan.
 */
function expectSameRecalls(got: [string, number][][], want: [string, number][][], what?: string) {
  expect(
    got.map((hits) => hits.map(([name]) => name)),
    what,
  ).toEqual(want.map((hits) => hits.map(([name]) => name)));
  got.forEach((hits, i) => {
    for (const [j, [name, similarity]] of hits.entries())
      expect(Math.abs(similarity - want[i][j][1]), `${what ?? ''} ${name}`).toBeLessThanOrEqual(3e-4);
  });
}

const mainFile = (path = db) => indexFiles(path).find((f) => f.endsWith('.idx'))!;

/** What recall answers when it reads every skill from the store and keeps nothing on disk. */
async function freshRecall(path = db): Promise<[string, number][][]> {
  const memory = await openMemory({ db: path, config: { recall: { persistIndex: false } } });
  const out = [];
  for (const g of goals)
    out.push((await memory.recall(g, { record: false })).map((h) => [h.name, h.similarity] as [string, number]));
  await memory.close();
  return out;
}

beforeAll(async () => {
  if (!existsSync(`${root}dist/index.js`))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const records = readTau(TAU_DEV);
  db = tempDbPath();
  const memory = await openMemory({ db, config: { recall: { persistIndex: false } } });
  await memory.ingest(records.map((r) => toSession(r)));
  await memory.synthesize();
  expect((await memory.skills.list()).length).toBeGreaterThan(3);
  await memory.close();
  goals = [...new Set(records.map((r) => toSession(r).goal))].slice(0, 40);
  reference = await freshRecall();
  expect(reference.filter((hits) => hits.length > 0).length).toBeGreaterThan(3);
}, 120_000);

describe('persisted recall index', () => {
  it('a new process builds and saves the index; the next one loads it unchanged and recalls the same skills', () => {
    expect(indexFiles()).toEqual([]);
    expectSameRecalls(recallInChild(), reference);
    const files = indexFiles();
    expect(files.some((f) => f.endsWith('.idx'))).toBe(true);
    expect(files.some((f) => f.endsWith('.hnsw'))).toBe(true);
    const before = files.map((f) => [f, statSync(f).mtimeMs]);
    expectSameRecalls(recallInChild(), reference);
    // Loaded, not rebuilt: nothing was written.
    expect(indexFiles().map((f) => [f, statSync(f).mtimeMs])).toEqual(before);
  }, 60_000);

  it('a file left stale by another process is brought up to date: a skill disabled there is never served', async () => {
    recallInChild();
    const served = reference.flat()[0][0];
    execFileSync(process.execPath, [child, db, 'disable', served], { env });
    const got = recallInChild();
    expect(got.flat().map((h) => h[0])).not.toContain(served);
    expectSameRecalls(got, await freshRecall());
    // And back: re-enabled elsewhere, served again.
    const memory = await openMemory({ db, config });
    await memory.skills.setEnabled(served, true);
    await memory.close();
    expectSameRecalls(recallInChild(), reference);
  }, 120_000);

  it('a file older than the change log window is rebuilt: a skill disabled meanwhile is never served', async () => {
    recallInChild();
    const served = reference.flat()[0][0];
    execFileSync(process.execPath, [child, db, 'disable', served], { env });
    // Another namespace's churn pushes the disable's predecessors out of the log's window (migration 9).
    const raw = new Database(db);
    const churn = raw.prepare("INSERT INTO skill_changes (namespace, skill_id) VALUES ('elsewhere', 'sk_x')");
    raw.transaction(() => {
      for (let i = 0; i < 101_000; i++) churn.run();
    })();
    expect(
      (raw.prepare('SELECT through FROM skill_changes_pruned').get() as { through: number }).through,
    ).toBeGreaterThan(0);
    raw.close();
    const got = recallInChild();
    expect(got.flat().map((h) => h[0])).not.toContain(served);
    expectSameRecalls(got, await freshRecall());
    const memory = await openMemory({ db, config });
    await memory.skills.setEnabled(served, true);
    await memory.close();
    expectSameRecalls(recallInChild(), reference);
  }, 120_000);

  it('a truncated or corrupt index file is rebuilt, never served', () => {
    recallInChild();
    for (const file of indexFiles()) {
      const whole = readFileSync(file);
      // Each damage costs two new processes: a few kinds per file, the index file tests cover every byte.
      for (const damage of ['cut-header', 'cut-half', 'flip-late', 'zeros'] as const) {
        const bad = Buffer.from(whole);
        if (damage === 'flip-late') bad[bad.length - 5] ^= 0x01;
        if (damage === 'zeros') bad.fill(0, Math.floor(bad.length / 3), Math.floor(bad.length / 3) + 64);
        writeFileSync(file, bad);
        if (damage === 'cut-header') truncateSync(file, 10);
        if (damage === 'cut-half') truncateSync(file, Math.floor(whole.length / 2));
        expectSameRecalls(recallInChild(), reference, `${basename(file)}: ${damage}`);
        // The rebuild wrote a whole index again; restore the file under test for the next damage.
        if (existsSync(file)) writeFileSync(file, whole);
        else recallInChild();
      }
    }
  }, 300_000);

  it('a writer killed in the middle of saving leaves a file that loads whole or is rebuilt', async () => {
    recallInChild();
    for (const delayMs of [5, 60, 250]) {
      const writer = spawn(process.execPath, [child, db, 'save-forever'], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, delayMs));
      writer.kill('SIGKILL');
      await new Promise((r) => writer.once('exit', r));
      expectSameRecalls(recallInChild(), reference, `killed after ${delayMs} ms`);
    }
    // What the killed writers left is whole: the next process loads it without rewriting it.
    const main = mainFile();
    const before = statSync(main).mtimeMs;
    expectSameRecalls(recallInChild(), reference);
    expect(statSync(main).mtimeMs).toBe(before);
  }, 180_000);

  it('an index built on another database is not used for this one, even at the same path and revision', async () => {
    recallInChild();
    // Another memory learned from the same history: same skills, same revision count, another store id.
    const other = tempDbPath();
    const memory = await openMemory({ db: other, config: { recall: { persistIndex: false } } });
    await memory.ingest(readTau(TAU_DEV).map((r) => toSession(r)));
    await memory.synthesize();
    await memory.close();
    for (const f of indexFiles())
      writeFileSync(join(dirname(other), basename(f).replace(basename(db), basename(other))), readFileSync(f));
    const copied = readFileSync(mainFile(other));
    expectSameRecalls(recallInChild(other), await freshRecall(other));
    // Refused and rebuilt: the file now holds this database's index.
    expect(readFileSync(mainFile(other)).equals(copied)).toBe(false);
  }, 120_000);
});
