import { runDoctor, type DoctorDeps, type DoctorReport } from '../../../doctor/doctor.js';
import {
  dbExists,
  startCommand,
  dbPathFromFlags,
  processIo,
  sayUpgraded,
  type CommandFlags,
  type CommandIo,
} from '../command-support.js';
import { canCreateStore, foreignStore, isPostgresLocation, openStoreAt } from '../../../app/backends.js';
import { shownLocation } from '../../../config/default-db.js';
import { type Command, MEMORY_FLAGS } from '../command.js';

/**
 * `skillsmith doctor [--config FILE] [--db PATH] [--namespace NS] [--json]`: checks each configured back end
 * and says what to fix. Exit 0 when nothing failed (warnings allowed), 1 when something is broken,
 * 2 for bad usage or an invalid configuration. The memory file is only read, and only if it exists.
 */
export async function doctorCommand(
  args: string[],
  flags: CommandFlags,
  io: CommandIo = processIo,
  deps: DoctorDeps = {},
): Promise<number> {
  const config = startCommand('doctor', args, flags, io);
  if (config === 2) return 2;
  const dbPath = dbPathFromFlags(flags);
  const exists = deps.store ? true : await dbExists(dbPath);
  // Another program's database is reported, not opened (opening refuses it): a failed memory check.
  const foreign = deps.store || !exists ? null : await foreignStore(dbPath);
  const opened = deps.store || !exists || foreign ? undefined : await openStoreAt(dbPath);
  await sayUpgraded(opened, dbPath, (l) => io.stderr(l));
  const store = deps.store ?? opened;
  try {
    const location = shownLocation(dbPath);
    let memory = deps.memory;
    if (!memory && foreign)
      memory = { location, kind: isPostgresLocation(dbPath) ? 'postgres' : 'sqlite', foreign: foreign.message };
    else if (!memory && opened)
      memory = {
        location,
        kind: opened.kind,
        schemaVersion: await opened.schemaVersion(),
        readOnly: !!opened.readOnly,
      };
    else if (!memory && !deps.store) {
      const { can, why } = await canCreateStore(dbPath);
      memory = {
        location,
        kind: isPostgresLocation(dbPath) ? 'postgres' : 'sqlite',
        missing: true,
        canCreate: can,
        why,
      };
    }
    const report = await runDoctor(config, { ...deps, memory, store, namespace: config.namespace });
    if (flags.json) io.stdout(JSON.stringify(report, null, 2));
    else io.stdout(renderDoctorReport(report));
    return report.ok ? 0 : 1;
  } finally {
    await opened?.close();
  }
}

const LABEL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

/** The human-readable report: one line per check, a `fix:` line under each problem, a verdict. */
export function renderDoctorReport(r: DoctorReport): string {
  const lines: string[] = ['skillsmith doctor', ''];
  const e = r.embedder;
  const where = (s: { provider: string; model?: string; endpoint?: string; apiKey?: string }) =>
    [s.provider, s.model, s.endpoint ? `at ${s.endpoint}` : '', s.apiKey ? `(api key ${s.apiKey})` : '']
      .filter(Boolean)
      .join(' ');
  const section = (title: string, backend: string) => {
    const checks = r.checks.filter((c) => c.backend === backend);
    if (checks.length === 0) return;
    lines.push(title);
    for (const c of checks) {
      lines.push(`  ${LABEL[c.status]}  ${c.check.padEnd(14)} ${c.message}`);
      if (c.fix && c.status !== 'ok') lines.push(`  ${' '.repeat(4)}  ${''.padEnd(14)} fix: ${c.fix}`);
    }
    lines.push('');
  };
  section(`embedder: ${where(e)}`, 'embedder');
  section('store', 'store');
  section(`distiller: ${r.distiller.kind}${r.distiller.llm ? ` (${where(r.distiller.llm)})` : ''}`, 'llm');
  section('outcome judge: llm (capture.judge)', 'judge');
  const warn = r.warnings ? `, ${r.warnings} warning${r.warnings === 1 ? '' : 's'}` : '';
  lines.push(
    r.ok
      ? `Everything needed is ready${warn}.`
      : `${r.problems} problem${r.problems === 1 ? '' : 's'}${warn}: fix the lines marked FAIL.`,
  );
  return lines.join('\n');
}

/** `skillsmith doctor`: builds its own back ends, so a broken one cannot stop it from running. */
export const command: Command = {
  name: 'doctor',
  flags: [...MEMORY_FLAGS, 'json'],
  help: `  doctor                      check each configured back end (reachable, model, dimension, round trip); exit 1 if broken`,
  opens: 'self',
  run: (args, { flags }) => doctorCommand(args, flags),
};
