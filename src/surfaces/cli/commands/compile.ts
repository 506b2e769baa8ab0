import { type Command, MEMORY_FLAGS } from '../command.js';
import { ids, out, printJson, writeErr } from '../output.js';
import type { CompileResult } from '../../../pipeline/compile.js';

const USAGE = 'usage: skillsmith compile --sessions ID,ID | --cue "GOAL" [--facts ID,ID] [--commit]';

/** `skillsmith compile --sessions ID,ID | --cue "GOAL" [--facts ID,ID] [--commit]`: one skill, explicitly. */
export const command: Command = {
  name: 'compile',
  flags: [...MEMORY_FLAGS, 'sessions', 'cue', 'facts', 'commit', 'json'],
  help: `  compile --sessions ID,ID | --cue "GOAL" [--facts ID,ID] [--commit]
                              distil one skill explicitly (dry run unless --commit)`,
  opens: 'memory',
  usage: (_args, flags) => (flags.sessions || flags.cue || flags.facts ? null : USAGE),
  // A skill is compiled from stored sessions or facts: a memory that is not there has none.
  ifMissing: () => 'fail',
  async run(_args, { flags, memory: open }) {
    const memory = await open();
    const res = await memory.skills.compile({
      sessions: ids(flags.sessions),
      cue: flags.cue,
      facts: ids(flags.facts),
      commit: !!flags.commit,
    });
    if (flags.json) {
      printJson(res);
      return res.action === 'skip' ? 1 : 0;
    }
    if (res.action === 'skip') {
      writeErr(`skillsmith: no skill: ${res.reason}\n`);
      for (const line of leftOutLines(res)) writeErr(`${line}\n`);
      return 1;
    }
    out(
      res.dryRun
        ? `Dry run: this is the skill that would be ${res.action === 'add' ? 'written' : `${res.action}d`} (nothing was written; add --commit).`
        : `Committed: ${res.action} ${res.skill?.name}.`,
    );
    if (res.duplicateOf)
      out(`It duplicates the existing skill ${res.duplicateOf.name} (${res.duplicateOf.id}): ${res.action}.`);
    out('');
    if (res.skillMd) out(res.skillMd);
    out(
      `Parents: ${res.parents.sessions.map((p) => `${p.id} (${p.outcome})`).join(', ') || '-'}${res.parents.facts.length ? `; facts ${res.parents.facts.map((f) => f.id).join(', ')}` : ''}`,
    );
    for (const line of leftOutLines(res)) out(line);
    return 0;
  },
};

/** The sessions compile did not use, one line each with why. */
function leftOutLines(res: CompileResult): string[] {
  return res.leftOut.map((l) => `Left out: ${l.id} (${l.reason})`);
}
