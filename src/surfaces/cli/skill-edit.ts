// `skillsmith skills edit NAME [--file PATH|-] [--revert]`: a person corrects a learned skill's SKILL.md. With
// --file, the text of PATH (- for stdin); without it, the SKILL.md in the person's editor ($VISUAL, else $EDITOR,
// else vi on a terminal), as `git commit` opens one: a temporary file, read back when the editor exits.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import type { EditResult } from '../../app/catalog.js';
import type { Memory } from '../../app/memory.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { noSkillNamed, skillJson } from '../shapes.js';
import { type Flags, readStdin } from './options.js';
import { out, printJson, writeErr } from './output.js';

/** What is wrong with `skills edit`'s arguments beyond NAME (said before the memory opens), or null. */
export function editUsage(more: readonly string[], flags: Flags): string | null {
  if (more.length)
    return `skills edit takes one NAME (got also "${more.join(' ')}"); the text comes from --file or an editor`;
  if (flags.revert && flags.file !== undefined)
    return 'skills edit: --revert hands the skill back to the learner; it takes no --file';
  if (flags.file !== undefined && !flags.file.trim())
    return 'skills edit: --file needs the path of the edited SKILL.md, or - for standard input';
  if (flags.file !== undefined && flags.file !== '-' && !existsSync(flags.file))
    return `skills edit: cannot read "${flags.file}": no such file or directory`;
  if (flags.file === undefined && !flags.revert && !editorCommand())
    return 'skills edit needs the new SKILL.md: --file PATH (- for standard input), or an editor (set VISUAL or EDITOR)';
  return null;
}

/** The editor a person set ($VISUAL, then $EDITOR), else vi when there is a terminal to show it on; else null. */
function editorCommand(): string | null {
  const set = [process.env.VISUAL, process.env.EDITOR].find((e) => e?.trim());
  if (set) return set.trim();
  return isatty(0) && isatty(1) ? 'vi' : null;
}

/** `skills edit`: the exit code. */
export async function edit(memory: Memory, name: string, flags: Flags): Promise<number> {
  if (flags.revert) return said(memory, name, await memory.skills.revertEdit(name, { actor: 'cli' }), flags);
  let text: string;
  if (flags.file !== undefined) {
    text = flags.file === '-' ? readStdin() : readFileSync(flags.file, 'utf8');
  } else {
    const skill = await memory.skills.get(name);
    if (!skill || skill.supersededBy) return missing(memory, name);
    const edited = inEditor(skill.name, skill.skillMd);
    if (edited === null) return 1;
    text = edited;
  }
  return said(memory, name, await memory.skills.edit(name, text, { actor: 'cli' }), flags);
}

/**
 * The text a person left in the editor, opened on a temporary `<name>/SKILL.md` that holds `text`; null (said) when
 * the editor could not start or failed: nothing is changed then.
 */
function inEditor(name: string, text: string): string | null {
  const editor = editorCommand()!;
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-edit-'));
  const file = join(dir, `${name}.SKILL.md`);
  try {
    writeFileSync(file, text);
    // As git runs its editor: through the shell, so that `code --wait` or `emacs -nw` work, the file its last word.
    const run =
      process.platform === 'win32'
        ? spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true })
        : spawnSync('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit' });
    if (run.error || run.status !== 0) {
      const why = run.error ? run.error.message : `exited with ${run.status ?? run.signal}`;
      writeErr(`skillsmith: the editor (${editor}) ${why}: nothing changed\n`);
      return null;
    }
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What an edit (or a revert) did, in words or as JSON: the exit code. */
async function said(memory: Memory, name: string, res: EditResult | null, flags: Flags): Promise<number> {
  if (!res) return missing(memory, name);
  if (flags.json) {
    printJson({
      skill: skillJson(res.skill),
      changed: res.changed,
      ...(res.why ? { why: res.why } : {}),
      warnings: res.warnings,
      redacted: res.redacted,
    });
    return 0;
  }
  for (const w of res.warnings) writeErr(`warning: ${w}\n`);
  if (res.redacted.length)
    writeErr(
      `note: redacted from the text before it was stored (${res.redacted.join(', ')}): a skill never keeps a secret or personal data\n`,
    );
  const s = res.skill;
  if (!res.changed)
    out(
      res.why === 'empty'
        ? `${s.name}: the text is empty, so nothing changed (an empty file cancels an edit).`
        : res.why === 'unchanged'
          ? `${s.name}: the description and body are as they were, so nothing changed (the frontmatter's metadata is the memory's).`
          : `${s.name} was not edited by a person: nothing to hand back.`,
    );
  else if (flags.revert)
    out(
      `${s.name} is the learner's again (version ${s.version}): the text it last learned, ${s.toolSequence.join(' > ')}; the next pass may write it anew. skills diff ${s.name} shows the change.`,
    );
  else
    out(
      `${s.name} edited (version ${s.version}): recall serves your text from now on, procedure ${s.toolSequence.join(' > ') || '-'}; later passes keep it (skills edit ${s.name} --revert hands it back). skills diff ${s.name} shows the change.`,
    );
  return 0;
}

/** A skill that is not there, said with the name it has now when it was renamed: NotFoundError, exit 1. */
async function missing(memory: Memory, name: string): Promise<never> {
  throw new NotFoundError(await noSkillNamed(memory, name));
}
