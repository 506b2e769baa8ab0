// Sessions for the forgetting tests: four that teach one skill, one of them carrying strings found nowhere
// else (a goal word, a tool result), so a scan of the database can tell whether any trace of it is left.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import type { Memory } from '../../src/app/memory.js';
import type { Session } from '../../src/domain/types.js';

export const SECRET_GOAL_WORD = 'Quillbrook';
export const SECRET_RESULT = 'VIOLET-LANTERN-4471';

/** The four sessions; the first one holds the secret strings. */
export function forgetSessions(prefix = 'fg'): Session[] {
  const goals = [
    `Cancel my pending order #W9001, ship nothing to ${SECRET_GOAL_WORD} Lane`,
    'Please cancel the pending order #W9002, I ordered it by mistake',
    'I want to cancel my pending order #W9003',
    'Cancel pending order #W9004, I changed my mind about it',
  ];
  return goals.map((goal, i) => ({
    id: `${prefix}-${i}`,
    namespace: 'default',
    goal,
    outcome: 'success' as const,
    reward: null,
    agentId: 'agent',
    source: 'test',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:01:00.000Z',
    labels: null,
    calls: [
      {
        position: 0,
        tool: 'find_user_id_by_email',
        args: { email: `u${i}@example.com` },
        result: `{"user_id":"u${i}"}`,
        ok: true,
        error: null,
        durationMs: 5,
        at: '2026-01-01T00:00:01.000Z',
      },
      {
        position: 1,
        tool: 'get_order_details',
        args: { order_id: `#W900${i + 1}` },
        result: i === 0 ? `{"status":"pending","note":"${SECRET_RESULT}"}` : '{"status":"pending"}',
        ok: true,
        error: null,
        durationMs: 5,
        at: '2026-01-01T00:00:02.000Z',
      },
      {
        position: 2,
        tool: 'cancel_pending_order',
        args: { order_id: `#W900${i + 1}`, reason: 'no longer needed' },
        result: 'cancelled',
        ok: true,
        error: null,
        durationMs: 5,
        at: '2026-01-01T00:00:03.000Z',
      },
    ],
  }));
}

/** Which of the needles occur in a file (and its -wal), byte for byte, as UTF-8 or UTF-16. */
export function tracesInFile(path: string, needles: string[]): string[] {
  const files = [path, `${path}-wal`].filter((p) => existsSync(p));
  const bytes = files.map((p) => readFileSync(p));
  return needles.filter((n) =>
    bytes.some((b) => b.includes(Buffer.from(n, 'utf8')) || b.includes(Buffer.from(n, 'utf16le'))),
  );
}

/** Which of the needles occur anywhere in the database: every row of every table, read as text. */
export async function tracesInDatabase(url: string, needles: string[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    const found = new Set<string>();
    for (const { table_name } of tables as { table_name: string }[]) {
      const { rows } = await client.query(`SELECT t::text AS row FROM "${table_name}" t`);
      for (const { row } of rows as { row: string }[]) for (const n of needles) if (row.includes(n)) found.add(n);
    }
    return [...found].sort();
  } finally {
    await client.end();
  }
}

/**
 * A recall row naming an ingested session that has ended, as the recall index writes one while a session runs
 * (`memory.recall` refuses a session that ended): what forgetting the session must delete too.
 */
export async function recordRecallFor(memory: Memory, sessionId: string, goal: string, skillName: string) {
  const skill = await memory.skills.get(skillName);
  if (!skill) throw new Error(`no skill ${skillName}`);
  await memory.parts.store!.recordRecall('default', {
    sessionId,
    goal,
    at: new Date().toISOString(),
    items: [{ skillId: skill.id, rank: 0, similarity: 0.9 }],
  });
}

/**
 * The four sessions (ids `prefix-0` to `prefix-3`) in the interchange format, for retention: two that ended long
 * ago (200 and 120 days), one two days ago, and one whose start reads as no date.
 */
export function writeDatedSessions(file: string, prefix: string): void {
  const days = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const when = [
    { started_at: days(201), ended_at: days(200) },
    { started_at: days(120), ended_at: days(120) },
    { started_at: days(3), ended_at: days(2) },
    { started_at: 'last tuesday' },
  ];
  const lines = forgetSessions(prefix).map((s, i) =>
    JSON.stringify({
      session_id: s.id,
      goal: s.goal,
      success: true,
      ...when[i],
      steps: s.calls.map((c) => ({ tool: c.tool, args: c.args, result: c.result, ok: true })),
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
}
