// `skills export` into a folder that already holds skills: a SKILL.md (or an imported skill's file) is written over
// only when this memory wrote it for that skill, or it is what is written now. A person's edit in place, a folder of
// that name another tool wrote, and every file export does not write, stay as they are. Through the built CLI, on a
// real SQLite memory learned from examples/tau-sample.jsonl.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyMemory, runBuiltCli, type Run } from './support/built-cli.js';
import { SAMPLE } from './support/tau.js';

const SKILL = 'fix-phone-service';
const FOLDERS = new URL('./fixtures/skill-folders/anthropics-style/skills/', import.meta.url).pathname;
const EDITED = `SKILL.md there was edited since it was exported (or was not written by this memory): left as it is; \`skills edit ${SKILL}\` keeps an edit in the memory, or \`--force\` overwrites it`;

interface Exported {
  written: { name: string; path: string; files?: number }[];
  skipped: { name: string; reason: string }[];
}

let tmp: string;
let config: string;
/** A memory learned from the sample less its last record (a run of fix-phone-service), held back for a pass. */
let base: string;
let heldBack: string;
let dbs = 0;

const cli = (args: string[]): Run => runBuiltCli(args, { cwd: tmp });

/** A private copy of the learned memory. */
const memory = () => copyMemory(base, join(tmp, `db-${++dbs}`));

/** `skills export --json` into `out`, its exit code and what it says. */
function exportTo(db: string, out: string, more: string[] = []): { code: number | null; res: Exported } {
  const r = cli(['skills', 'export', '--out', out, '--db', db, '--json', ...more]);
  expect(r.stdout, r.stderr).not.toBe('');
  return { code: r.code, res: JSON.parse(r.stdout) as Exported };
}

/** What the memory exports now, into a folder of its own: the text an export writes. */
function exportedText(db: string, name = SKILL): string {
  const out = mkdtempSync(join(tmp, 'fresh-'));
  expect(exportTo(db, out).code).toBe(0);
  return readFileSync(join(out, name, 'SKILL.md'), 'utf8');
}

/** relative path -> content of every file under dir. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

/** The exported SKILL.md with a line a person added to its edge cases. */
function editByHand(path: string): string {
  const text = readFileSync(path, 'utf8');
  const edited = text.replace(
    '## Edge cases\n',
    '## Edge cases\n\n- Ask the customer to restart the phone once the line is resumed.\n',
  );
  expect(edited).not.toBe(text);
  writeFileSync(path, edited);
  return edited;
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-export-edits-'));
  config = join(tmp, 'config.json');
  // A pass right after another takes the new session (no cooldown).
  writeFileSync(config, JSON.stringify({ synthesis: { cooldownMs: 0 } }));
  const lines = readFileSync(SAMPLE, 'utf8').split('\n').filter(Boolean);
  const most = join(tmp, 'most.jsonl');
  heldBack = join(tmp, 'held-back.jsonl');
  writeFileSync(most, `${lines.slice(0, -1).join('\n')}\n`);
  writeFileSync(heldBack, `${lines.at(-1)}\n`);
  mkdirSync(join(tmp, 'base'));
  base = join(tmp, 'base', 'memory.db');
  const learned = cli(['learn', most, '--db', base, '--config', config]);
  expect(learned.code, learned.stderr).toBe(0);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('skills export over a SKILL.md a person edited', () => {
  it('leaves it as it is, lists the skill under skipped and exits 1; --force overwrites it', () => {
    const db = memory();
    const out = join(tmp, 'edited');
    const first = exportTo(db, out);
    expect(first.code).toBe(0);
    const path = join(out, SKILL, 'SKILL.md');
    const edited = editByHand(path);
    const again = exportTo(db, out);
    expect(again.code).toBe(1);
    expect(again.res.skipped).toEqual([{ name: SKILL, reason: EDITED }]);
    expect(again.res.written.map((w) => w.name).sort()).toEqual(
      first.res.written
        .map((w) => w.name)
        .filter((n) => n !== SKILL)
        .sort(),
    );
    expect(readFileSync(path, 'utf8')).toBe(edited);
    // Said without --json too, on a failed run.
    const text = cli(['skills', 'export', '--out', out, '--db', db]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`  skipped ${SKILL}: ${EDITED}`);
    expect(text.stderr).toContain('1 skill(s) not written');
    expect(readFileSync(path, 'utf8')).toBe(edited);
    // --force writes over it, as export did before.
    const forced = exportTo(db, out, ['--force']);
    expect(forced.code).toBe(0);
    expect(forced.res.skipped).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(exportedText(db));
  });

  it('kept in the memory with skills edit, it is the memory text: the next export writes the new version', () => {
    const db = memory();
    const out = join(tmp, 'edited-then-kept');
    expect(exportTo(db, out).code).toBe(0);
    const path = join(out, SKILL, 'SKILL.md');
    editByHand(path);
    expect(exportTo(db, out).code).toBe(1);
    const kept = cli(['skills', 'edit', SKILL, '--file', path, '--db', db]);
    expect(kept.code, kept.stderr).toBe(0);
    const after = exportTo(db, out);
    expect(after.code).toBe(0);
    expect(after.res.skipped).toEqual([]);
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(exportedText(db));
    expect(text).toMatch(/^ {2}version: 1\.1\.0$/m);
    expect(text).toContain('- Ask the customer to restart the phone once the line is resumed.');
  });
});

describe('skills export over a text this memory wrote', () => {
  it('writes over it when a pass restated only its counts, and when the skill has a new version', () => {
    const db = memory();
    const out = join(tmp, 'ours');
    expect(exportTo(db, out).code).toBe(0);
    const path = join(out, SKILL, 'SKILL.md');
    expect(readFileSync(path, 'utf8')).toContain('Learned from 5 successful sessions');
    // The held-back run reinforces the skill: its version's text now counts six sessions and lists six sources.
    const pass = cli(['learn', heldBack, '--db', db, '--config', config]);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toContain('1 reinforced');
    const reinforced = exportTo(db, out);
    expect(reinforced.code).toBe(0);
    expect(reinforced.res.skipped).toEqual([]);
    expect(readFileSync(path, 'utf8')).toContain('Learned from 6 successful sessions');
    expect(readFileSync(path, 'utf8')).toBe(exportedText(db));
    // A new version (a person's edit, stored by skills edit from a file of their own): the 1.0.0 text goes.
    const mine = join(tmp, 'mine.SKILL.md');
    writeFileSync(mine, readFileSync(path, 'utf8').replace('## Done when\n', '## Done when\n\nThe bill is paid.\n'));
    expect(cli(['skills', 'edit', SKILL, '--file', mine, '--db', db]).code).toBe(0);
    const next = exportTo(db, out);
    expect(next.code).toBe(0);
    expect(next.res.skipped).toEqual([]);
    expect(readFileSync(path, 'utf8')).toMatch(/^ {2}version: 1\.1\.0$/m);
    expect(readFileSync(path, 'utf8')).toBe(exportedText(db));
  });
});

describe('skills export over a folder someone else wrote', () => {
  it("leaves a hand-written skill folder of a learned skill's name whole, and skips that skill", () => {
    const db = memory();
    const out = join(tmp, 'hand-written');
    const folder = join(out, SKILL);
    mkdirSync(join(folder, 'scripts'), { recursive: true });
    writeFileSync(
      join(folder, 'SKILL.md'),
      `---\nname: ${SKILL}\ndescription: My own steps for a phone with no service.\n---\n\n# Fix phone service\n\n1. Run scripts/reset.sh.\n`,
    );
    writeFileSync(join(folder, 'scripts', 'reset.sh'), '#!/bin/sh\necho reset\n');
    const before = tree(folder);
    const r = exportTo(db, out);
    expect(r.code).toBe(1);
    expect(r.res.skipped).toEqual([{ name: SKILL, reason: EDITED }]);
    expect(r.res.written.length).toBeGreaterThan(0);
    expect(tree(folder)).toEqual(before);
  });

  it('never deletes a file export does not write: in DIR, or in a skill folder it writes, forced or not', () => {
    const db = memory();
    const out = join(tmp, 'other-files');
    mkdirSync(join(out, SKILL), { recursive: true });
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    writeFileSync(join(out, SKILL, 'NOTES.md'), 'what worked for me\n');
    mkdirSync(join(out, SKILL, 'scripts'));
    writeFileSync(join(out, SKILL, 'scripts', 'check.sh'), '#!/bin/sh\n');
    const mine = { 'notes.txt': 'mine\n', [`${SKILL}/NOTES.md`]: 'what worked for me\n' };
    const first = exportTo(db, out);
    expect(first.code).toBe(0);
    expect(first.res.written.map((w) => w.name)).toContain(SKILL);
    expect(tree(out)).toMatchObject({ ...mine, [`${SKILL}/scripts/check.sh`]: '#!/bin/sh\n' });
    // Written over by a pass's new counts, then forced: the other files stay.
    expect(cli(['learn', heldBack, '--db', db, '--config', config]).code).toBe(0);
    expect(exportTo(db, out).code).toBe(0);
    expect(tree(out)).toMatchObject(mine);
    expect(readFileSync(join(out, SKILL, 'SKILL.md'), 'utf8')).toContain('Learned from 6 successful sessions');
    expect(exportTo(db, out, ['--force']).code).toBe(0);
    expect(tree(out)).toMatchObject({ ...mine, [`${SKILL}/scripts/check.sh`]: '#!/bin/sh\n' });
  });
});

describe('skills export where a folder stands for a file', () => {
  it('skips that skill with why, forced or not, and writes the others (was: EISDIR, the export stopped)', () => {
    const db = memory();
    const out = join(tmp, 'folder-in-the-way');
    mkdirSync(join(out, SKILL, 'SKILL.md'), { recursive: true });
    writeFileSync(join(out, SKILL, 'SKILL.md', 'mine.txt'), 'mine\n');
    for (const more of [[], ['--force']]) {
      const r = exportTo(db, out, more);
      expect(r.code).toBe(1);
      expect(r.res.skipped).toEqual([
        {
          name: SKILL,
          reason: `refusing to replace ${join(out, SKILL, 'SKILL.md')}: it is not a file (a folder or a special file)`,
        },
      ]);
      expect(r.res.written.length).toBeGreaterThan(0);
      expect(tree(join(out, SKILL))).toEqual({ 'SKILL.md/mine.txt': 'mine\n' });
    }
  });
});

describe('skills export --all over an imported skill written back', () => {
  it('writes over the files of any version it imported; a file changed since is left, and the skill skipped', () => {
    const db = memory();
    const source = join(tmp, 'source', 'spreadsheet-audit');
    cpSync(join(FOLDERS, 'spreadsheet-audit'), source, { recursive: true });
    expect(cli(['skills', 'import', source, '--db', db]).code).toBe(0);
    const out = join(tmp, 'imported');
    const first = exportTo(db, out, ['--all']);
    expect(first.code).toBe(0);
    const folder = join(out, 'spreadsheet-audit');
    expect(tree(folder)).toEqual(tree(source));
    // A new version imported (its reference changed): the folder holds the first version's files, this memory's.
    writeFileSync(join(source, 'reference.md'), `${readFileSync(join(source, 'reference.md'), 'utf8')}\nNew note.\n`);
    expect(cli(['skills', 'import', source, '--force', '--db', db]).code).toBe(0);
    const next = exportTo(db, out, ['--all']);
    expect(next.code).toBe(0);
    expect(next.res.skipped).toEqual([]);
    expect(tree(folder)).toEqual(tree(source));
    // A person changes the script in the exported folder: left, and said.
    const script = join(folder, 'scripts', 'audit_workbook.py');
    writeFileSync(script, `${readFileSync(script, 'utf8')}# my fix\n`);
    const edited = tree(folder);
    const again = exportTo(db, out, ['--all']);
    expect(again.code).toBe(1);
    expect(again.res.skipped).toEqual([
      {
        name: 'spreadsheet-audit',
        reason: `scripts/audit_workbook.py there was edited since it was exported (or not written by this memory): left as it is; \`skills import ${folder} --force\` keeps the folder in the memory as its next version, or \`--force\` overwrites it`,
      },
    ]);
    expect(tree(folder)).toEqual(edited);
    expect(again.res.written.map((w) => w.name)).toContain(SKILL);
    const forced = exportTo(db, out, ['--all', '--force']);
    expect(forced.code).toBe(0);
    expect(tree(folder)).toEqual(tree(source));
    expect(existsSync(join(out, SKILL, 'SKILL.md'))).toBe(true);
  });
});
