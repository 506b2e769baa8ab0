import { copyMemory, type TransferReport } from '../../../app/backends.js';
import { TransferError } from '../../../errors/transfer-error.js';
import { UsageError, type Command } from '../command.js';
import { errorCodeOf } from '../../shapes.js';
import { errorLine } from '../output.js';
import { shownLocation } from '../../../config/default-db.js';

export interface MigrateIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: MigrateIo = {
  stdout: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  stderr: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
};

const USAGE =
  'usage: skillsmith migrate --from SOURCE --to TARGET [--json]   (each a SQLite path or a postgres:// URL)';

/**
 * `skillsmith migrate --from A --to B [--json]`: copies the whole memory at A (every namespace, with its ids,
 * history, skills, clusters and audit trail) into the empty memory at B, then verifies every table by row
 * count and checksum. SQLite -> PostgreSQL moves a laptop memory to a fleet; PostgreSQL -> SQLite takes one
 * back. Exit 0 when verified, 1 when the copy failed or did not verify, 2 for bad usage.
 */
export async function migrateCommand(
  args: string[],
  flags: Record<string, unknown>,
  io: MigrateIo = processIo,
): Promise<number> {
  // --from/--to, or the two locations as arguments.
  const rest = [...args];
  const from = typeof flags.from === 'string' ? flags.from : rest.shift();
  const to = typeof flags.to === 'string' ? flags.to : rest.shift();
  // Said in words, or with --json as one line of JSON (`errorLine`).
  const say = (message: string, code: string, hint?: string) =>
    io.stderr(errorLine(message, code, { json: flags.json, hint }));
  if (!from || !to || rest.length) {
    say('migrate needs a source and a target', UsageError.code, USAGE);
    return 2;
  }
  if (from === to) {
    say(`migrate: source and target are the same memory (${shownLocation(from)})`, UsageError.code);
    return 2;
  }
  let report: TransferReport;
  try {
    report = await copyMemory(from, to);
  } catch (e) {
    const why = e instanceof TransferError ? e.message : `${(e as Error)?.message ?? e}`;
    say(`migrate failed: ${why}`, errorCodeOf(e));
    return 1;
  }
  if (flags.json) io.stdout(JSON.stringify(report, null, 2));
  else io.stdout(renderTransferReport(report));
  if (!report.ok) {
    say(
      `migrate: the copy in ${report.to} does not match ${report.from} (see the tables marked MISMATCH); do not use it`,
      TransferError.code,
    );
    return 1;
  }
  return 0;
}

export function renderTransferReport(r: TransferReport): string {
  const width = Math.max(...r.tables.map((t) => t.table.length));
  const lines = [`Copied ${r.from} -> ${r.to} in ${(r.ms / 1000).toFixed(1)} s`, ''];
  lines.push(`${'table'.padEnd(width)}  ${'rows'.padStart(9)}  checksum (sha-256 sum)  check`);
  for (const t of r.tables) {
    const rows = t.sourceRows === t.targetRows ? String(t.targetRows) : `${t.sourceRows}->${t.targetRows}`;
    lines.push(
      `${t.table.padEnd(width)}  ${rows.padStart(9)}  ${t.targetChecksum.slice(0, 16)}...     ${t.ok ? 'ok' : 'MISMATCH'}`,
    );
  }
  lines.push('');
  lines.push(
    r.ok
      ? `Verified: ${r.tables.length} tables, ${r.rows} rows, counts and checksums equal on both sides.`
      : `NOT verified: ${r.tables
          .filter((t) => !t.ok)
          .map((t) => t.table)
          .join(', ')} differ.`,
  );
  return lines.join('\n');
}

/** `skillsmith migrate`: opens its two memories itself (and never --db). */
export const command: Command = {
  name: 'migrate',
  flags: ['from', 'to', 'json'],
  help: `  migrate --from A --to B     copy a whole memory between SQLite and PostgreSQL (either way) into an empty
                              target, verified by row counts and checksums per table; A and B are each a
                              SQLite file or a postgres:// URL, every namespace is copied (--db and
                              --namespace are not read), a PostgreSQL target's database must exist
                              (createdb NAME) and hold no memory yet, a SQLite target is created; the
                              source is only read, from one snapshot, while others write to it: this is
                              also the backup (README "Backing up a memory")`,
  opens: 'self',
  run: (args, { flags }) => migrateCommand(args, flags),
};
