import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { SkillFile } from '../store/store.js';
import { InputError } from '../errors/input-error.js';

/**
 * Skill folders on disk, read and written whole: `SKILL.md` with everything bundled beside it (scripts/,
 * references/, assets/, LICENSE...), byte for byte. The file I/O of `skills import` / `skills export`.
 *
 * Safety, the same on both sides: no symbolic link is followed (a link inside a skill folder is reported and
 * left out; a folder or file on the write path that is a link is refused), paths never leave the folder, and
 * sizes are bounded (per file, per skill, files per skill).
 */

export const SKILL_FOLDER_LIMITS = {
  /** Largest SKILL.md read. */
  skillMdBytes: 1024 * 1024,
  /** Largest bundled file read. */
  fileBytes: 10 * 1024 * 1024,
  /** Largest whole folder. */
  folderBytes: 50 * 1024 * 1024,
  files: 2000,
  /** How deep the search for skill folders goes below the import root. */
  searchDepth: 8,
};

/** Folders never searched for skills nor taken into one: version control and package caches. */
const NEVER = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv']);

export interface FolderSkip {
  path: string;
  reason: string;
  /** A refusal (something that looked like a skill and was not taken), not a plain note. */
  refused?: boolean;
}

/**
 * Every skill folder under `root` (a folder holding `SKILL.md`), dot-folders included (openai/skills keeps
 * its skills under `.curated/` and `.system/`). The search does not descend into a skill folder. Symlinked
 * folders are not followed and are reported.
 */
export function findSkillFolders(root: string): { folders: string[]; skipped: FolderSkip[] } {
  const folders: string[] = [];
  const skipped: FolderSkip[] = [];
  const realRoot = realpathSync(root);
  const walk = (dir: string, depth: number) => {
    if (hasSkillMd(dir)) {
      folders.push(dir);
      return;
    }
    if (depth >= SKILL_FOLDER_LIMITS.searchDepth) {
      skipped.push({
        path: dir,
        reason: `not searched: deeper than ${SKILL_FOLDER_LIMITS.searchDepth} folders below the import root`,
      });
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      const p = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        if (isDirThroughLink(p)) {
          const real = realpathSync(p);
          const inside = real === realRoot || real.startsWith(realRoot + sep);
          skipped.push(
            inside
              ? { path: p, reason: 'not searched: a symbolic link to a folder (never followed)' }
              : { path: p, reason: `refused: a symlink leads out of ${root} (to ${real})`, refused: true },
          );
        }
        continue;
      }
      if (!entry.isDirectory()) continue;
      if (NEVER.has(entry.name)) continue;
      walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return { folders, skipped };
}

function hasSkillMd(dir: string): boolean {
  try {
    lstatSync(join(dir, 'SKILL.md'));
    return true;
  } catch {
    return false;
  }
}

function isDirThroughLink(p: string): boolean {
  try {
    return lstatSync(realpathSync(p)).isDirectory();
  } catch {
    return false;
  }
}

export interface ReadFolder {
  /** Every regular file, by `/`-separated path, SKILL.md included; sorted by path. */
  files: SkillFile[];
  /** Files left out and why (links, oversized, special files). */
  skipped: FolderSkip[];
}

/**
 * Reads a skill folder whole. Throws (the folder is refused) when SKILL.md itself is a link, not a regular
 * file or over its limit, or when the folder is over the size or count limit: a skill is kept whole or not at
 * all. Links and special files inside are left out and reported.
 */
export function readSkillFolder(folder: string): ReadFolder {
  const skillMd = join(folder, 'SKILL.md');
  const top = lstatSync(skillMd);
  if (top.isSymbolicLink()) throw new InputError('refused: SKILL.md is a symbolic link');
  if (!top.isFile()) throw new InputError('refused: SKILL.md is not a regular file');
  if (top.size > SKILL_FOLDER_LIMITS.skillMdBytes)
    throw new InputError(
      `refused: SKILL.md is ${top.size} bytes, over the ${SKILL_FOLDER_LIMITS.skillMdBytes}-byte limit`,
    );
  const files: SkillFile[] = [];
  const skipped: FolderSkip[] = [];
  let total = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      const rel = relative(folder, p).split(sep).join('/');
      // A backslash in a name is a folder separator on Windows: such a file could not be written back out anywhere.
      if (entry.name.includes('\\')) {
        skipped.push({ path: rel, reason: 'left out: a backslash in its name (a folder separator on Windows)' });
        continue;
      }
      if (entry.isSymbolicLink()) {
        skipped.push({ path: rel, reason: 'left out: a symbolic link (never followed)' });
        continue;
      }
      if (entry.isDirectory()) {
        if (NEVER.has(entry.name)) {
          skipped.push({ path: rel, reason: 'left out: version-control or package-cache folder' });
          continue;
        }
        walk(p);
        continue;
      }
      if (!entry.isFile()) {
        skipped.push({ path: rel, reason: 'left out: not a regular file' });
        continue;
      }
      const info = lstatSync(p);
      const size = info.size;
      if (size > SKILL_FOLDER_LIMITS.fileBytes)
        throw new InputError(
          `refused: ${rel} is ${size} bytes, over the ${SKILL_FOLDER_LIMITS.fileBytes}-byte limit per file`,
        );
      total += size;
      if (total > SKILL_FOLDER_LIMITS.folderBytes)
        throw new InputError(`refused: the folder is over the ${SKILL_FOLDER_LIMITS.folderBytes}-byte limit per skill`);
      if (files.length >= SKILL_FOLDER_LIMITS.files)
        throw new InputError(`refused: more than ${SKILL_FOLDER_LIMITS.files} files`);
      files.push({ path: rel, bytes: readFileSync(p), ...(info.mode & 0o111 ? { executable: true } : {}) });
    }
  };
  walk(folder);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, skipped };
}

/** A stored path is written only when it is relative, `/`-separated, and stays inside the folder. */
export function safeRelativePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * Writes a skill folder's files under `folder`, each through a fresh temporary file renamed into place (a
 * rename replaces a planted link, never writes to its target). Refuses when the folder or any directory on a
 * file's path is a symbolic link, or a folder or special file stands where a file goes. A file already there is
 * replaced; every other file in the folder is left as it is. Returns null, or why nothing was written.
 */
export function writeSkillFolder(folder: string, files: SkillFile[]): string | null {
  const refused = writeRefusal(folder, files);
  if (refused) return refused;
  for (const f of files) {
    const target = resolve(folder, ...f.path.split('/'));
    const dir = resolve(target, '..');
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${f.path.split('/').pop()}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
    writeFileSync(tmp, f.bytes, { flag: 'wx', mode: f.executable ? 0o755 : 0o644 });
    // The mode asked of writeFileSync is cut by the umask: set it as stored.
    chmodSync(tmp, f.executable ? 0o755 : 0o644);
    renameSync(tmp, target);
  }
  return null;
}

/**
 * The files of `files` that are already in `folder` (regular files, read byte for byte), what writing it would
 * replace; null when writeSkillFolder would refuse the folder (it says why).
 */
export function filesThere(folder: string, files: SkillFile[]): SkillFile[] | null {
  if (writeRefusal(folder, files)) return null;
  const there: SkillFile[] = [];
  for (const f of files) {
    const target = join(folder, ...f.path.split('/'));
    if (existsSync(target)) there.push({ path: f.path, bytes: readFileSync(target) });
  }
  return there;
}

/** Why writeSkillFolder would write nothing: a path that leaves the folder, a link on the way, a non-file in the way. */
function writeRefusal(folder: string, files: SkillFile[]): string | null {
  for (const f of files)
    if (!safeRelativePath(f.path))
      return `refusing the stored path ${JSON.stringify(f.path)}: not a plain relative path`;
  const dirs = new Set<string>([folder]);
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(join(folder, ...parts.slice(0, i)));
  }
  for (const d of dirs) {
    const link = linkAt(d);
    if (link) return `refusing to write through the symlink ${link}`;
    if (existsSync(d) && !lstatSync(d).isDirectory()) return `refusing to write into ${d}: it is not a folder`;
  }
  for (const f of files) {
    const target = join(folder, ...f.path.split('/'));
    const link = linkAt(target);
    if (link) return `refusing to write through the symlink ${link}`;
    if (existsSync(target) && !lstatSync(target).isFile())
      return `refusing to replace ${target}: it is not a file (a folder or a special file)`;
  }
  return null;
}

function linkAt(p: string): string | null {
  try {
    return lstatSync(p).isSymbolicLink() ? p : null;
  } catch {
    return null;
  }
}
