import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, win32 } from 'node:path';

export interface DbLocation {
  /** SQLite file path or postgres:// URL. */
  path: string;
  /** Why this one: said on stderr at start-up, so a person always knows which memory a surface uses. */
  reason: 'flag' | 'SKILLSMITH_DB' | 'working directory' | 'per-user data directory';
}

/**
 * Which memory a surface (CLI, serve, mcp) opens: `--db`, else SKILLSMITH_DB, else `./skillsmith.db` when it
 * exists in the working directory, else `skillsmith.db` in the per-user data directory. A desktop MCP client
 * starts its servers in whatever directory it likes; the per-user file is the same memory wherever that is.
 */
export function resolveDbLocation(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  /** The folder whose ./skillsmith.db is used when it exists; null: none (a hook, see `hookCwd`). */
  cwd: string | null = process.cwd(),
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): DbLocation {
  if (flag) return { path: underHome(flag, home), reason: 'flag' };
  if (env.SKILLSMITH_DB) return { path: underHome(env.SKILLSMITH_DB, home), reason: 'SKILLSMITH_DB' };
  const local = cwd === null ? null : resolve(cwd, 'skillsmith.db');
  if (local && existsSync(local)) return { path: local, reason: 'working directory' };
  return { path: perUserDbPath(env, platform, home), reason: 'per-user data directory' };
}

/**
 * A path that starts with `~/` under the home folder, as a shell would expand it: an MCP client's or a hook's JSON
 * configuration passes its arguments to no shell, and `~/agents/memory.db` made a folder named `~`.
 */
function underHome(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/**
 * `<data dir>/skillsmith/skillsmith.db`: $XDG_DATA_HOME or ~/.local/share on Linux and other Unix systems,
 * ~/Library/Application Support on macOS, %LOCALAPPDATA% (else %APPDATA%) on Windows.
 */
export function perUserDbPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA || env.APPDATA || win32.join(home, 'AppData', 'Local');
    return win32.join(base, 'skillsmith', 'skillsmith.db');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'skillsmith', 'skillsmith.db');
  // XDG: a relative XDG_DATA_HOME is invalid and ignored.
  const xdg = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(xdg, 'skillsmith', 'skillsmith.db');
}

/** `postgres://` and `postgresql://` URLs name a PostgreSQL memory; anything else is a SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location.trim());
}

/**
 * A memory's location as output and logs show it: a PostgreSQL URL with its password masked, whether it is in the
 * user part (`postgres://app:***@host/db`) or a parameter (`?password=***`, `sslpassword`); the rest of the text as
 * given. A SQLite path as it is.
 */
export function shownLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  // Parameters whose name says password (pg reads `password` and `sslpassword` from the query string).
  const shown = location.replace(/([?&][^=&#]*pass[^=&#]*=)[^&#]*/gi, '$1***');
  // Read as text, not by a URL parser: a password pasted as it is (`p@ss w/rd#1`, not percent-encoded) is no URL
  // a parser takes, or one it splits elsewhere. The user part runs to the last `@` (a host has none); everything
  // after the user name's first `:` is hidden, so a stray `@` later in the text hides more, never less.
  const m = /^(\s*postgres(?:ql)?:\/\/)(.*)@/is.exec(shown);
  if (!m) return shown;
  const colon = m[2].indexOf(':');
  if (colon < 0) return shown;
  return `${m[1]}${m[2].slice(0, colon)}:***@${shown.slice(m[0].length)}`;
}

/**
 * A location as a printed follow-up command repeats it: a PostgreSQL URL without its password (in the user part or
 * as a parameter), which the driver then takes from PGPASSWORD or ~/.pgpass, so the line runs as pasted once one
 * of them holds it (a masked `***` never could). A SQLite path as it is.
 */
export function repeatableLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  const shown = shownLocation(location);
  return shown
    .replace(/([?&])[^=&#]*pass[^=&#]*=\*\*\*(&?)/gi, (_m, lead: string, next: string) => (next ? lead : ''))
    .replace(':***@', '@');
}

/** The start-up line naming the memory (nothing when --db named it: the person already knows). */
export function describeDbLocation(loc: DbLocation): string | null {
  if (loc.reason === 'flag') return null;
  return `skillsmith: memory ${shownLocation(loc.path)} (${loc.reason}; --db PATH to choose another)`;
}
