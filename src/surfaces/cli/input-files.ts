import { type Dirent, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { UsageError } from '../../errors/usage-error.js';

/**
 * The log files `ingest` and `learn` read: each FILE as given, and for a directory every `.jsonl` and `.json`
 * file below it (also gzip-compressed, `.jsonl.gz`), in name order (where agents keep their logs: `~/.claude/projects`, `~/.codex/sessions`,
 * `~/.gemini/tmp`), leaving out hidden folders and `node_modules` below it. A path that does not exist, or a
 * directory with no log file below it, is a usage error naming it, before anything is read or stored.
 *
 * Inside a directory, the files the agents keep beside their sessions that hold no session of their own are
 * left out, and `notes` says how many: subagent transcripts (Claude Code's `subagents/agent-*.jsonl`, the
 * Gemini CLI's `chats/<parent session>/*.jsonl`: the main session's tool call stands for them) and the Gemini
 * CLI's prompt log (`logs.json` beside `chats/`). Named one by one, they are read, and said to hold nothing.
 * `-` stands for standard input (once).
 */
export function inputFiles(paths: readonly string[], command: string, notes: string[] = []): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (path === STDIN) {
      if (files.includes(STDIN)) throw new UsageError(`${command}: - (standard input) can be read only once`);
      files.push(STDIN);
      continue;
    }
    const dir = isDirectory(path, command);
    if (!dir) {
      files.push(path);
      continue;
    }
    const unreadDirs: string[] = [];
    const found = logsBelow(path, unreadDirs, command);
    if (unreadDirs.length)
      notes.push(
        `${path}: left out ${unreadDirs.length} folder(s) below it that cannot be read (${unreadDirs.slice(0, 3).join(', ')}${unreadDirs.length > 3 ? ', ...' : ''})`,
      );
    const kept = found.filter((f) => !besideSessions(f));
    if (kept.length === 0)
      throw new UsageError(`${command}: "${path}" is a directory with no .jsonl or .json session log below it`);
    if (kept.length < found.length)
      notes.push(
        `${path}: left out ${found.length - kept.length} file(s) that hold no session of their own (subagent transcripts, whose work is a tool call of the main session, and the Gemini CLI's prompt log)`,
      );
    files.push(...kept);
  }
  return files;
}

/** The FILE that stands for standard input: a log piped in (`cat chat.json | skillsmith ingest -`). */
export const STDIN = '-';

/** Whether `path` is a directory; a path that cannot be read is a usage error naming it (`what`: who reads it). */
export function isDirectory(path: string, what: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${what}: cannot read "${path}": ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
    );
  }
}

/** A file a command reads whole (not a folder); else a usage error naming it. */
export function mustBeFile(path: string, what: string): void {
  if (isDirectory(path, what)) throw new UsageError(`${what}: "${path}" is a directory, not a file`);
}

const LOG_FILE = /\.jsonl?(?:\.gz)?$/i;

/** A file an agent keeps beside its sessions that holds none of its own (see inputFiles). */
function besideSessions(file: string): boolean {
  const parts = file.split(sep);
  const name = parts[parts.length - 1];
  const parent = parts[parts.length - 2];
  const grandparent = parts[parts.length - 3];
  if (parent === 'subagents' && /^agent-.*\.jsonl$/.test(name)) return true;
  if (grandparent === 'chats' && name.endsWith('.jsonl')) return true;
  return name === 'logs.json' && existsSync(join(dirname(file), 'chats'));
}

/**
 * The log files below `dir`, in name order. A folder below it that cannot be listed (another account's, no
 * permission) is left out and named in `unreadDirs`; the folder a command was given (`command`) not listing is a
 * usage error.
 */
function logsBelow(dir: string, unreadDirs: string[], command?: string): string[] {
  const out: string[] = [];
  let listed: Dirent[];
  try {
    listed = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (command) throw new UsageError(`${command}: cannot read the directory "${dir}": ${(e as Error).message}`);
    unreadDirs.push(dir);
    return out;
  }
  const entries = listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...logsBelow(path, unreadDirs));
    else if (e.isFile() && LOG_FILE.test(e.name)) out.push(path);
  }
  return out;
}
