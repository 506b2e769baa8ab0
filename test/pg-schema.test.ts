// Keeping a PostgreSQL memory's tables in a schema of their own, in a database an application also uses: the one way
// PostgreSQL itself offers, a search_path in the connection's options (`options=-csearch_path%3DNAME` in the URL, or
// PGOPTIONS), works for every command, migrate included; another tool's `schema=` parameter, which the driver would
// ignore (the tables would land in public), is refused; a search_path naming no schema says to create it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from './support/built-cli.js';
import { pgRows as sql, startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE } from './support/surfaces.js';

let dir: string;
let server: PgServer;
const GOAL = 'I want to return the headphones I received';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-pg-schema-'));
  server = await startPgServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  return runBuiltCli(args, {
    cwd: dir,
    env: { HOME: dir, XDG_CACHE_HOME: join(dir, '.cache'), XDG_DATA_HOME: join(dir, '.local', 'share'), ...env },
    unset: ['SKILLSMITH_TOKEN', 'PGOPTIONS', 'PGSSLMODE'],
  });
}

/** An application's database: its own table in public, and an empty schema `skillsmith`. */
async function appDatabase(): Promise<string> {
  const url = await server.createDatabase();
  await sql(url, 'CREATE TABLE public.orders (id int); CREATE SCHEMA skillsmith');
  return url;
}

const tablesBySchema = async (url: string) =>
  Object.fromEntries(
    (
      await sql<{ schema: string; n: number }>(
        url,
        `SELECT table_schema AS schema, count(*)::int AS n FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') GROUP BY 1`,
      )
    ).map((r) => [r.schema, r.n]),
  );

describe('a PostgreSQL memory in a schema of its own', () => {
  it('options=-csearch_path keeps every table in that schema; PGOPTIONS does the same; migrate copies into it', async () => {
    const url = await appDatabase();
    const inSchema = `${url}?options=-csearch_path%3Dskillsmith`;
    const learn = cli(['learn', '--db', inSchema, SAMPLE]);
    expect(learn.code, learn.stderr).toBe(0);
    const tables = await tablesBySchema(url);
    expect(tables.public).toBe(1);
    expect(tables.skillsmith).toBeGreaterThan(10);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM skillsmith.sessions')).toEqual([{ n: 89 }]);

    for (const [db, env] of [
      [inSchema, {}],
      [url, { PGOPTIONS: '-c search_path=skillsmith' }],
    ] as const) {
      const recall = cli(['recall', '--db', db, '--json', GOAL], env);
      expect(recall.code, recall.stderr).toBe(0);
      expect(JSON.parse(recall.stdout).length).toBeGreaterThan(0);
    }

    // A laptop's memory moved into the schema of another application database.
    const file = join(dir, 'laptop.db');
    expect(cli(['learn', '--db', file, SAMPLE]).code).toBe(0);
    const target = await appDatabase();
    const migrate = cli(['migrate', '--from', file, '--to', `${target}?options=-csearch_path%3Dskillsmith`]);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect((await tablesBySchema(target)).public).toBe(1);
    expect(await sql(target, 'SELECT count(*)::int AS n FROM skillsmith.sessions')).toEqual([{ n: 89 }]);
  }, 180_000);

  it("another tool's schema parameter is refused, before anything is made in public", async () => {
    const url = await appDatabase();
    for (const param of ['schema', 'currentSchema']) {
      const r = cli(['learn', '--db', `${url}?${param}=skillsmith`, SAMPLE]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${param}= in the PostgreSQL URL`);
      expect(r.stderr).toContain('options=-csearch_path%3DNAME');
    }
    expect(await tablesBySchema(url)).toEqual({ public: 1 });
  }, 60_000);

  it('a search_path that names no schema says to create it, in learn and in doctor', async () => {
    const url = `${await appDatabase()}?options=-csearch_path%3Dno_such_schema`;
    const learn = cli(['learn', '--db', url, SAMPLE]);
    expect(learn.code).toBe(1);
    expect(learn.stderr).toContain('no schema has been selected to create in');
    expect(learn.stderr).toContain('names no schema that exists: create it first (CREATE SCHEMA');
    const doctor = cli(['doctor', '--db', url]);
    expect(doctor.stdout).toContain('names no schema that exists');
    expect(doctor.stdout).not.toContain('no CREATE on schema public');
  }, 60_000);
});
