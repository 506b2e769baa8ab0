import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors/usage-error.js';

/**
 * The log files `ingest` and `learn` read: each FILE as given, and for a directory every `.jsonl` and `.json`
 * file below it, in name order (where agents keep their logs: `~/.claude/projects`, `~/.codex/sessions`,
 * `~/.gemini/tmp`), leaving out hidden folders and `node_modules` below it. A path that does not exist, or a
 * directory with no log file below it, is a usage error naming it, before anything is read or stored.
 */
export function inputFiles(paths: readonly string[], command: string): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let dir: boolean;
    try {
      dir = statSync(path).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        `${command}: cannot read "${path}": ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
      );
    }
    if (!dir) {
      files.push(path);
      continue;
    }
    const found = logsBelow(path);
    if (found.length === 0)
      throw new UsageError(`${command}: "${path}" is a directory with no .jsonl or .json file below it`);
    files.push(...found);
  }
  return files;
}

const LOG_FILE = /\.jsonl?$/i;

function logsBelow(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...logsBelow(path));
    else if (e.isFile() && LOG_FILE.test(e.name)) out.push(path);
  }
  return out;
}
