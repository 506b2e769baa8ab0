import { escapeControl } from '../../../domain/untrusted-text.js';
import type { Command } from '../command.js';
import { out, printJson, writeErr } from '../output.js';

/** `skillsmith sessions forget ID...`: sessions deleted for good (exit 1 when one was not found). */
export const command: Command = {
  name: 'sessions',
  help: `  sessions forget ID...       delete sessions for good: goal, calls, results; skills learned from them keep a
                              forgotten-parent marker (an audit record names each by an opaque reference)`,
  opens: 'memory',
  usage: ([sub, ...ids]) => (sub !== 'forget' || ids.length === 0 ? 'usage: skillsmith sessions forget ID...' : null),
  ifMissing: () => 'fail',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const ids = args.slice(1);
    const forgotten: { id: string; ref: string; calls: number; skills: string[] }[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const gone = await memory.sessions.forget(id, { actor: 'cli' });
      if (gone) forgotten.push({ id, ...gone });
      else missing.push(id);
    }
    if (flags.json) printJson({ forgotten, missing });
    else {
      for (const f of forgotten)
        out(
          `session ${f.id} forgotten (${f.calls} calls)${f.skills.length ? `; ${f.skills.join(', ')} keep a forgotten-parent marker` : ''}`,
        );
      for (const id of missing) writeErr(`skillsmith: no session "${escapeControl(id)}"\n`);
    }
    return missing.length ? 1 : 0;
  },
};
