import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeDbLocation, perUserDbPath, resolveDbLocation, shownLocation } from './default-db.js';

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-dbloc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('which memory a surface opens', () => {
  it('--db, then SKILLSMITH_DB, then an existing ./skillsmith.db, then the per-user data directory', () => {
    const env = { XDG_DATA_HOME: '/data/xdg' };
    expect(resolveDbLocation('x.db', { ...env, SKILLSMITH_DB: 'env.db' }, dir, 'linux', '/home/u')).toEqual({
      path: 'x.db',
      reason: 'flag',
    });
    expect(resolveDbLocation(undefined, { ...env, SKILLSMITH_DB: 'env.db' }, dir, 'linux', '/home/u')).toEqual({
      path: 'env.db',
      reason: 'SKILLSMITH_DB',
    });
    expect(resolveDbLocation(undefined, env, dir, 'linux', '/home/u')).toEqual({
      path: '/data/xdg/skillsmith/skillsmith.db',
      reason: 'per-user data directory',
    });
    writeFileSync(join(dir, 'skillsmith.db'), '');
    expect(resolveDbLocation(undefined, env, dir, 'linux', '/home/u')).toEqual({
      path: join(dir, 'skillsmith.db'),
      reason: 'working directory',
    });
  });

  it("takes a path that starts with ~/ under the home folder, as a shell would (a client's JSON passes no shell)", () => {
    expect(resolveDbLocation('~/agents/m.db', {}, dir, 'linux', '/home/u').path).toBe('/home/u/agents/m.db');
    expect(resolveDbLocation(undefined, { SKILLSMITH_DB: '~/m.db' }, dir, 'linux', '/home/u').path).toBe(
      '/home/u/m.db',
    );
    // Only a leading ~/ : a folder whose name starts with ~, or a ~ further on, is a path as given.
    expect(resolveDbLocation('~backup/m.db', {}, dir, 'linux', '/home/u').path).toBe('~backup/m.db');
    expect(resolveDbLocation('data/~/m.db', {}, dir, 'linux', '/home/u').path).toBe('data/~/m.db');
  });

  it('follows each platform: XDG (absolute only) or ~/.local/share, Application Support, LOCALAPPDATA', () => {
    expect(perUserDbPath({}, 'linux', '/home/u')).toBe('/home/u/.local/share/skillsmith/skillsmith.db');
    expect(perUserDbPath({ XDG_DATA_HOME: 'relative' }, 'linux', '/home/u')).toBe(
      '/home/u/.local/share/skillsmith/skillsmith.db',
    );
    expect(perUserDbPath({}, 'darwin', '/Users/u')).toBe(
      '/Users/u/Library/Application Support/skillsmith/skillsmith.db',
    );
    expect(perUserDbPath({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Local\\skillsmith\\skillsmith.db',
    );
  });

  it('names the memory on start-up, never a password in a URL', () => {
    expect(describeDbLocation({ path: 'x.db', reason: 'flag' })).toBeNull();
    expect(describeDbLocation({ path: '/d/skillsmith.db', reason: 'per-user data directory' })).toBe(
      'skillsmith: memory /d/skillsmith.db (per-user data directory; --db PATH to choose another)',
    );
    expect(describeDbLocation({ path: 'postgres://u:secret@h/db', reason: 'SKILLSMITH_DB' })).toBe(
      'skillsmith: memory postgres://u:***@h/db (SKILLSMITH_DB; --db PATH to choose another)',
    );
    expect(describeDbLocation({ path: 'postgres://h/db?password=secret', reason: 'SKILLSMITH_DB' })).not.toContain(
      'secret',
    );
  });

  it('shows a PostgreSQL URL without its password, wherever the URL carries one, and the rest as given', () => {
    expect(shownLocation('postgres://fleet:fleetpw@127.0.0.1:5432/mem')).toBe(
      'postgres://fleet:***@127.0.0.1:5432/mem',
    );
    // Percent-encoded characters and an @ inside the password.
    expect(shownLocation('postgresql://fleet:p%40ss%2Fw0rd@db.internal/mem')).toBe(
      'postgresql://fleet:***@db.internal/mem',
    );
    // The pg driver reads these parameters too; the others keep their text exactly.
    expect(
      shownLocation('postgres://fleet@h/mem?sslmode=require&password=fleetpw&options=-c%20search_path%3Dteam'),
    ).toBe('postgres://fleet@h/mem?sslmode=require&password=***&options=-c%20search_path%3Dteam');
    expect(shownLocation('postgres://h/mem?sslpassword=keypw')).toBe('postgres://h/mem?sslpassword=***');
    // A user without a password, a password that is also the database's name, and a URL the parser refuses.
    expect(shownLocation('postgres://fleet@h/mem')).toBe('postgres://fleet@h/mem');
    expect(shownLocation('postgres://mem:mem@h/mem')).toBe('postgres://mem:***@h/mem');
    expect(shownLocation('postgres://fleet:pw@h:notaport/mem')).toBe('postgres://fleet:***@h:notaport/mem');
    // Passwords pasted as they are, not percent-encoded: an @, a space, a quote, / # ? & = % (each was shown whole or
    // in part); the user part runs to the last @.
    for (const password of ['p@ssw0rd', 'S3CRET X', 'pa"ss word', 'p@ss:w/rd#?&=%', 'a/b', 'x#y'])
      expect(shownLocation(`postgres://app:${password}@127.0.0.1:54330/fleet`)).toBe(
        'postgres://app:***@127.0.0.1:54330/fleet',
      );
    // An @ after the host (in a parameter) hides more than the password, never less.
    expect(shownLocation('postgres://u:pw@h/db?application_name=a@b')).not.toContain('pw');
    // A SQLite path is not a URL: shown as it is, colons and at signs included.
    expect(shownLocation('/data/team:a@b.db')).toBe('/data/team:a@b.db');
  });
});
