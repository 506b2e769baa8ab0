// The audit JSONL beside a SQLite memory is one file whatever path names the memory: a relative path, the same with
// ./, the absolute one, or one through a symlinked folder. Each spelling kept its own mark of how far the file had
// got, so each appended the whole trail again (10 records became 27 lines in three commands).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from './support/built-cli.js';
import { SAMPLE } from './support/surfaces.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-audit-file-'));
  mkdirSync(join(dir, 'memories'));
  symlinkSync(join(dir, 'memories'), join(dir, 'link'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) =>
  runBuiltCli(args, { cwd: dir, env: { HOME: dir, XDG_DATA_HOME: join(dir, '.local', 'share') } });

describe('the audit file of a SQLite memory', () => {
  it('holds each audit record once, however the commands name the memory', () => {
    expect(cli(['learn', SAMPLE, '--db', 'memories/a.db']).code).toBe(0);
    // As an older version kept it: the mark under the path as typed then (not the spelling used next). The file's
    // last record says how far it got: nothing is appended twice.
    const raw = new Database(join(dir, 'memories', 'a.db'));
    raw
      .prepare(`UPDATE state SET key = ? WHERE namespace = '' AND key LIKE 'audit-file:%'`)
      .run('audit-file:memories/a.db.audit.jsonl');
    raw.close();
    const [first] = JSON.parse(cli(['skills', 'list', '--json', '--db', 'memories/a.db']).stdout) as { name: string }[];
    for (const db of ['./memories/a.db', join(dir, 'memories', 'a.db'), join(dir, 'link', 'a.db'), 'memories/a.db']) {
      const r = cli(['skills', 'disable', first!.name, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      expect(cli(['skills', 'enable', first!.name, '--db', db]).code).toBe(0);
    }
    const ids = readFileSync(join(dir, 'memories', 'a.db.audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: number }).id);
    const db = new Database(join(dir, 'memories', 'a.db'), { readonly: true });
    const stored = (db.prepare('SELECT id FROM audit ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    db.close();
    expect(stored.length).toBeGreaterThan(8);
    expect(ids).toEqual(stored);
  }, 120_000);
});
