import { existsSync } from 'node:fs';
import type { Memory } from '../../../app/memory.js';
import { formatUnified } from '../../../domain/line-diff.js';
import { isTrial } from '../../../domain/lifecycle.js';
import { JUDGE_ACTOR } from '../../../domain/replace-trial.js';
import { noSkillNamed, skillJson } from '../../shapes.js';
import { UsageError, type Command, MEMORY_FLAGS, type Subcommand, withSubcommands } from '../command.js';
import type { Flags } from '../options.js';
import { memoryFlagsText } from '../command-support.js';
import { out, printJson, printSkillTable, writeErr } from '../output.js';
import { nearestName } from '../../../support/nearest-name.js';
import { NotFoundError } from '../../../errors/not-found-error.js';
import { edit, editUsage } from '../skill-edit.js';
import { editOf } from '../../../domain/learned-by.js';
import { renamedText } from '../../../domain/standing.js';

/**
 * Source sessions the text of `skills show` and `skills explain` names before saying how many more there are: a
 * skill of a busy memory has hundreds, and a screen of ids says less than the count.
 */
const SHOWN_SOURCES = 10;

/** `skills enable|disable NAME`: one line for the two. */
const ENABLE_HELP = `  skills enable|disable NAME  allow or block a skill from recall (the row is kept)`;

/**
 * Each subcommand: the operand it needs (export takes its folder from --out or an operand), the flags it reads
 * (any other is refused before the memory opens: `skills forget NAME --all` forgets nothing) and its help lines.
 */
const SUBCOMMANDS = [
  {
    name: 'list',
    operands: null,
    flags: [...MEMORY_FLAGS, 'all', 'json'],
    help: `  skills list                 every live skill, imported ones marked (add --all for superseded ones)`,
  },
  {
    name: 'show',
    operands: 'NAME',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  skills show NAME            one skill's SKILL.md, track record and source sessions`,
  },
  {
    name: 'explain',
    operands: 'NAME',
    flags: [...MEMORY_FLAGS, 'all', 'json'],
    help: `  skills explain NAME [--all] why a skill exists: parents, versions, supersede chain, trials, eta over time;
                              the first ${SHOWN_SOURCES} source sessions (--all or --json: every one)`,
  },
  {
    name: 'diff',
    operands: 'NAME [FROM [TO]]',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  skills diff NAME [FROM [TO]] what changed in its SKILL.md between two versions (default: the latest against
                              the one before), as diff -u shows it`,
  },
  { name: 'enable', operands: 'NAME', flags: [...MEMORY_FLAGS, 'json'], help: ENABLE_HELP },
  { name: 'disable', operands: 'NAME', flags: [...MEMORY_FLAGS, 'json'], help: ENABLE_HELP },
  {
    name: 'export',
    operands: '--out DIR',
    flags: [...MEMORY_FLAGS, 'out', 'all', 'force', 'json'],
    help: `  skills export --out DIR [--all] [--force]
                              write DIR/<name>/SKILL.md for every live learned skill; --all adds the imported
                              ones, each written back as its whole folder, byte for byte; a file there this memory
                              did not write (a person's edit) is left, and its skill skipped (exit 1), unless --force`,
  },
  {
    name: 'import',
    operands: 'DIR',
    flags: [...MEMORY_FLAGS, 'force', 'json'],
    help: `  skills import DIR [--force] read every skill folder below DIR (dot-folders too), whole, into the external
                              corpus (never recalled until promoted); --force stores a different skill under
                              an imported name as its next version (else refused, exit 1)`,
  },
  {
    name: 'promote',
    operands: 'NAME',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  skills promote NAME         make an imported skill recallable`,
  },
  {
    name: 'rename',
    operands: 'NAME NEW',
    flags: [...MEMORY_FLAGS, 'force', 'json'],
    help: `  skills rename NAME NEW [--force]
                              give a learned skill another name (a valid agentskills name no other skill has): a
                              new version that says it in its title and description; later passes keep it;
                              --force takes a name another skill had before a person renamed it`,
  },
  {
    name: 'edit',
    operands: 'NAME',
    flags: [...MEMORY_FLAGS, 'file', 'revert', 'json'],
    help: `  skills edit NAME [--file PATH|-] [--revert]
                              correct a learned skill: its SKILL.md in $VISUAL or $EDITOR (or the text of PATH, - for
                              stdin) becomes a new version, its procedure the tools its steps call; later passes keep
                              the text and say when its sessions suggest another procedure; --revert hands it back
                              to the learner (the text it last learned)`,
  },
  {
    name: 'forget',
    operands: 'NAME',
    flags: [...MEMORY_FLAGS, 'json'],
    help: `  skills forget NAME          delete a skill for good: SKILL.md versions, lineage, track record (an audit record stays)`,
  },
] as const satisfies readonly (Subcommand & { operands: string | null })[];
const SUBCOMMAND_NAMES: readonly string[] = SUBCOMMANDS.map((s) => s.name);

/** `skillsmith skills list|show|explain|diff|enable|disable|export|import|promote|rename|edit|forget`: the skill catalogue. */
export const command: Command = {
  name: 'skills',
  ...withSubcommands(SUBCOMMANDS),
  opens: 'memory',
  // Listing reads; enabling, promoting or forgetting a skill needs one stored; import may start a new memory.
  ifMissing: ([sub]) =>
    ['list', 'show', 'explain', 'diff', 'export'].includes(sub ?? '')
      ? 'empty'
      : ['enable', 'disable', 'promote', 'rename', 'edit', 'forget'].includes(sub ?? '')
        ? 'fail'
        : null,
  usage: ([sub, operand, ...more], flags) => {
    if (sub === undefined || !SUBCOMMAND_NAMES.includes(sub)) return wrongSubcommand(sub);
    if (operandsOf(sub) && !(operand ?? (sub === 'export' ? flags.out : undefined)))
      return `usage: skillsmith ${operandUsage(sub)}`;
    // diff compares at most two versions: a third is a mistake, not something to ignore; rename takes one name.
    if (sub === 'diff' && more.length > 2) return `usage: skillsmith ${operandUsage(sub)}`;
    if (sub === 'rename' && more.length !== 1) return `usage: skillsmith ${operandUsage(sub)}`;
    if (sub === 'edit') return editUsage(more, flags);
    // A folder to import that is not there is said before a memory is created to import into.
    return sub === 'import' && operand && !existsSync(operand)
      ? `skills import: cannot read "${operand}": no such file or directory`
      : null;
  },
  run: async (args, { flags, memory }) => skills(await memory(), args, flags),
};

/** "skills show NAME": what a subcommand's usage line says. */
const operandUsage = (sub: string) => `skills ${sub} ${operandsOf(sub)}`;

/** The operand a subcommand needs, or null. */
const operandsOf = (sub: string) => SUBCOMMANDS.find((s) => s.name === sub)?.operands ?? null;

/** What a missing or mistyped subcommand is told, with the nearest one when it is close. */
function wrongSubcommand(sub: string | undefined): string {
  const guess = sub === undefined ? undefined : nearestName(sub, SUBCOMMAND_NAMES);
  const what =
    sub === undefined
      ? 'skills needs a subcommand'
      : `unknown skills subcommand "${sub}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
  return `${what}: ${SUBCOMMAND_NAMES.slice(0, -1).join(', ')} or ${SUBCOMMAND_NAMES.at(-1)}`;
}

async function skills(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [sub, ...rest] = args;
  // The NAME or DIR a subcommand acts on: `usage` checked it is there before the memory opened.
  const operand = (sub === 'export' ? (flags.out ?? rest[0]) : rest[0]) as string;
  switch (sub) {
    case 'list': {
      const list = await memory.skills.list({ includeSuperseded: !!flags.all });
      if (flags.json) printJson(list.map(skillJson));
      else {
        printSkillTable(list, memory.config.synthesis.minOccurrences);
        // Said where a person looks after hooks learned quietly: runs that wait, alike, for a decision.
        const alike = (await memory.synthesis.lookAlike()).length;
        if (alike)
          out(
            `\n${alike === 1 ? 'One group' : `${alike} groups`} of sessions ran the same steps but ${alike === 1 ? 'was' : 'were'} asked for in words too far apart to group, each too few to learn from alone: skillsmith sessions alike${memoryFlagsText(flags)} shows them, and how to learn them as one skill.`,
          );
      }
      return 0;
    }
    case 'show': {
      const skill = await memory.skills.get(operand);
      if (!skill) return missing(memory, operand);
      if (flags.json) printJson({ ...skillJson(skill), skillMd: skill.skillMd });
      else {
        out(skill.skillMd);
        out(
          `status ${skill.status}, eta ${skill.eta.toFixed(2)}, utility ${skill.utility.toFixed(2)}, ${skill.successCount}/${skill.attemptCount} successful followers, ${skill.enabled ? 'enabled' : 'disabled'}`,
        );
        const ex = await memory.skills.explain(skill.id, undefined, { sessions: 0 });
        if (skill.trialsAttempted)
          out(`trials ${skill.trialsPassed}/${skill.trialsAttempted} passed${judgedText(ex?.trials ?? [])}`);
        const mark = editOf(skill.skillMd);
        const edited = mark && { by: mark.editedBy, at: mark.editedAt, suggests: mark.suggests };
        for (const line of editedLines(skill.name, edited)) out(line);
        // An old name's skill, no longer recalled: which one does its task now.
        const next = skill.supersededBy ? await memory.skills.get(skill.supersededBy) : null;
        if (next)
          out(
            `superseded by ${next.name} ${next.version}${renamedText(ex?.renamedTools)}: it is not recalled (skills show ${next.name})`,
          );
        // Retired by its trials, disabled, imported: why recall does not serve it, and what brings it back.
        else if (ex?.standing.reason) out(`not recalled: ${ex.standing.reason}`);
        const ids = skill.sourceSessions;
        out(
          ids.length > SHOWN_SOURCES
            ? `source sessions (${ids.length}): ${ids.slice(0, SHOWN_SOURCES).join(', ')} and ${ids.length - SHOWN_SOURCES} more (skills explain ${skill.name} --all lists every one)`
            : `source sessions: ${ids.join(', ') || '-'}`,
        );
      }
      return 0;
    }
    case 'explain': {
      // Text names the first few parents (--all: every one); --json gives them all, as it always has.
      const ex = await memory.skills.explain(
        operand,
        undefined,
        flags.all || flags.json ? {} : { sessions: SHOWN_SOURCES },
      );
      if (!ex) return missing(memory, operand);
      if (flags.json) {
        printJson(ex);
        return 0;
      }
      const k = ex.skill;
      out(
        `${k.name} ${k.version} (${k.kind}, ${k.corpus}) — ${k.status}${k.enabled ? '' : ', disabled'}, eta ${k.eta.toFixed(2)}, utility ${k.utility.toFixed(2)}`,
      );
      out(`  ${k.description}`);
      if (ex.standing.reason) out(`Not recalled: ${ex.standing.reason}`);
      for (const line of editedLines(k.name, ex.edited ?? null)) out(line);
      out(
        `Learned from ${ex.parents.sessionCount} session(s)${ex.parents.facts.length ? ` and ${ex.parents.facts.length} fact(s)` : ''}; ${k.successCount}/${k.attemptCount} followers succeeded; ${k.trialsPassed}/${k.trialsAttempted} trials passed${judgedText(ex.trials)}.`,
      );
      for (const p of ex.parents.sessions)
        out(
          `  session ${p.id} [${p.outcome}, ${p.calls} calls, since v${p.addedInVersion}] ${p.goal.replace(/\s+/g, ' ').slice(0, 100)}`,
        );
      if (ex.parents.sessions.length < ex.parents.sessionCount)
        out(`  ... and ${ex.parents.sessionCount - ex.parents.sessions.length} more (--all lists every one)`);
      for (const f of ex.parents.facts) out(`  fact ${f.id}: ${f.text}`);
      if (ex.parents.missing.length) out(`  (no longer stored: ${ex.parents.missing.join(', ')})`);
      if (ex.parents.forgotten) out(`  (${ex.parents.forgotten} parent session(s) forgotten at a person's request)`);
      if (ex.parents.revoked) out(`  (${revokedText(ex.parents)})`);
      if (ex.openSessions)
        out(
          `  (${ex.openSessions} session(s) of its kind still open, not ended and no outcome yet: no pass counts them until they end)`,
        );
      out('Versions:');
      for (const v of ex.versions)
        out(
          `  ${v.version} ${v.reason}${v.sameProcedure ? ' (same procedure)' : ''} ${v.createdAt}: ${v.toolSequence.join(' > ')}`,
        );
      if (ex.supersedeChain.length > 1)
        out(`Supersede chain: ${ex.supersedeChain.map((c) => `${c.name}@${c.version} (${c.status})`).join(' -> ')}`);
      out('Track record (eta, utility, status after each signal):');
      for (const t of ex.track)
        out(
          `  ${t.at} ${`${t.signal}${t.judged ? ' (judged)' : ''}`.padEnd(13)} eta ${t.eta.toFixed(2)} utility ${t.utility == null ? '-' : t.utility.toFixed(2)} ${t.status}${t.support === undefined ? '' : `, support ${t.support}`}`,
        );
      return 0;
    }
    case 'diff': {
      const d = await memory.skills.diff(operand, { from: rest[1], to: rest[2] });
      if (!d) return missing(memory, operand);
      if (flags.json) printJson(d);
      else if (!d.from) out(`${d.name} has one version (${d.to.version}): nothing to compare`);
      else {
        const said = (v: { version: string; reason: string; sameProcedure: boolean }) =>
          `${v.version} (${v.reason}${v.sameProcedure ? ', same procedure' : ''})`;
        out(`${d.name}: ${said(d.from)} -> ${said(d.to)}`);
        out(
          d.hunks.length
            ? formatUnified(d.hunks, `${d.from.name}@${d.from.version}`, `${d.to.name}@${d.to.version}`)
            : 'the same SKILL.md',
        );
      }
      return 0;
    }
    case 'rename': {
      const res = await memory.skills.rename(operand, rest[1] as string, { actor: 'cli', force: !!flags.force });
      if (!res) return missing(memory, operand);
      if (flags.json) printJson({ from: res.from, skill: skillJson(res.skill), changed: res.changed });
      else if (!res.changed)
        out(
          `${res.from === res.skill.name ? `${res.from} is already named` : `${res.from} was already renamed`} ${res.skill.name}: nothing changed.`,
        );
      else
        out(
          `${res.from} renamed ${res.skill.name} (version ${res.skill.version}); later passes keep the name. skills diff ${res.skill.name} shows the change.`,
        );
      return 0;
    }
    case 'edit':
      return edit(memory, operand, flags);
    case 'forget': {
      const gone = await memory.skills.forget(operand, { actor: 'cli' });
      if (!gone) return missing(memory, operand);
      if (flags.json) printJson({ forgotten: gone });
      else out(`${gone.name} forgotten (row, versions, lineage and track record deleted; an audit record remains)`);
      return 0;
    }
    case 'enable':
    case 'disable': {
      const skill = await memory.skills.setEnabled(operand, sub === 'enable');
      if (!skill) return missing(memory, operand);
      if (flags.json) printJson(skillJson(skill));
      else out(`${skill.name} ${sub}d`);
      return 0;
    }
    case 'export': {
      const dir = operand;
      const res = await memory.skills.export(dir, { includeExternal: !!flags.all, force: !!flags.force });
      if (flags.json) printJson(res);
      else {
        out(`Wrote ${res.written.length} SKILL.md file(s) under ${res.dir}`);
        for (const w of res.written) out(`  ${w.path}`);
        for (const s of res.skipped) out(`  skipped ${s.name}: ${s.reason}`);
        for (const w of res.warnings ?? []) writeErr(`warning: ${w.name}: ${w.reason}\n`);
        for (const s of res.stale) {
          const was = s.now ? `${s.now} before it was renamed` : 'a skill superseded since';
          out(
            s.removed
              ? `  removed ${s.path}: an earlier export of ${was}`
              : `  left ${s.path}: an earlier export of ${was}, edited since (remove it if it is not yours)`,
          );
        }
      }
      // A skill asked for and not written is a failed export (as a refused folder is a failed import).
      if (res.skipped.length && !flags.json)
        writeErr(`skillsmith: ${res.skipped.length} skill(s) not written (see "skipped" above)\n`);
      return res.skipped.length ? 1 : 0;
    }
    case 'import': {
      const res = await memory.skills.import(operand, { force: !!flags.force });
      if (flags.json) printJson(res);
      else {
        out(
          `Imported ${res.imported.length} skill(s) into the external corpus (listed, never recalled until promoted).`,
        );
        for (const i of res.imported)
          out(
            `  ${i.name} (${i.format}${i.version ? `, version ${i.version}` : ''}${i.files ? `, ${i.files} file(s) kept` : ''}${i.replaces ? `, replaces version ${i.replaces}` : ''})`,
          );
        for (const s of res.skipped) out(`  skipped ${s.path}: ${s.reason}`);
        for (const w of res.warnings ?? []) writeErr(`${w.path}${w.line ? `:${w.line}` : ''}: ${w.reason}\n`);
      }
      // A skill that was refused (or a folder without any) is an error; one already imported is not.
      return res.skipped.some((s) => s.refused) ? 1 : 0;
    }
    case 'promote': {
      const before = await memory.skills.get(operand);
      const skill = await memory.skills.promote(operand);
      if (flags.json) printJson(skillJson(skill));
      else if (before?.corpus === 'internal')
        out(
          `${skill.name} is back on probation (eta ${skill.eta.toFixed(2)}): recall serves it again, and its trials from now on judge it.`,
        );
      else out(`${skill.name} promoted: it can now be recalled.`);
      return 0;
    }
    default:
      // `usage` says so before the memory opens; a caller of `skills` that skipped it is told the same.
      throw new UsageError(wrongSubcommand(sub));
  }
}

/** A skill that is not there, said with the name it has now when it was renamed: NotFoundError, exit 1. */
async function missing(memory: Memory, name: string): Promise<never> {
  throw new NotFoundError(await noSkillNamed(memory, name));
}

/** How many of a skill's trials the outcome judge gave (lifecycle.judgedTrials), said after its trial count. */
function judgedText(trials: readonly { signal: string; actor: string | null }[]): string {
  const judged = trials.filter((t) => isTrial(t.signal) && t.actor === JUDGE_ACTOR);
  if (judged.length === 0) return '';
  const passed = judged.filter((t) => t.signal === 'trial.pass').length;
  return ` (${judged.length} judged, ${passed} of them passed: the outcome judge read their tasks, none was reported)`;
}

/**
 * What `skills show` and `skills explain` say of a skill a person edited: who and when, that passes keep the text,
 * and the procedure its sessions now suggest when a pass found another one.
 */
function editedLines(name: string, mark: { by: string; at: string; suggests?: string[] } | null): string[] {
  if (!mark) return [];
  return [
    `edited by a person (${mark.by}${mark.at ? `, ${mark.at}` : ''}): later passes keep this text; skills edit ${name} --revert hands it back to the learner`,
    ...(mark.suggests
      ? [
          `its sessions now suggest another procedure: ${mark.suggests.join(' > ')} (a pass after the edit found it; skills diff ${name} shows the edit)`,
        ]
      : []),
  ];
}

/**
 * The sources reported failed after the skill was learned from them: how many and, as the JSON and the dashboard name
 * them (`revokedSessions`: a forgotten one by its reference), which.
 */
function revokedText(parents: { revoked: number; revokedSessions: string[] }): string {
  const n = parents.revoked;
  const named = parents.revokedSessions.slice(0, n);
  const more = n - named.length;
  const which = named.length ? `: ${named.join(', ')}${more ? ` and ${more} more` : ''};` : ':';
  return `${n} session(s) it was learned from were reported failed afterwards${which} no longer its parents`;
}
