import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitOf } from '../src/eval/split.js';
import { TAU_DIR } from './support/tau.js';

/**
 * test/fixtures/traces/bfcl-multi-turn-turns.jsonl is the BFCL conversations split at their user turns
 * (scripts/bfcl-turns.mjs): the committed file is what the script writes, each turn's steps are the calls of
 * its own reference solution, and every turn of a conversation is on the side of the tune/test split that the
 * conversation has in the whole-conversation file, so the two evaluations never tune on each other's test half.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const BASE = join(TAU_DIR, 'bfcl-multi-turn-base.jsonl');
const TURNS = join(TAU_DIR, 'bfcl-multi-turn-turns.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'skillsmith-bfcl-turns-'));
const out = join(dir, 'turns.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  session_id: string;
  goal: string;
  steps: { tool: string }[];
  meta: { group?: string; turns?: { turn: number; user: string; gold_calls: string[] }[]; domain: string };
}
const rows = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

describe('the BFCL turn sessions', () => {
  it('are what scripts/bfcl-turns.mjs writes from the conversations', () => {
    const r = spawnSync(process.execPath, ['scripts/bfcl-turns.mjs', '--out', out], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(TURNS, 'utf8'));
  });

  it("hold each turn's own words and reference calls, on its conversation's side of the split", () => {
    const conversations = new Map(rows(BASE).map((c) => [c.session_id, c]));
    const turns = rows(TURNS);
    const expected = [...conversations.values()].flatMap((c) =>
      c.meta.turns!.filter((t) => t.gold_calls.length > 0).map((t) => ({ c, t })),
    );
    expect(turns).toHaveLength(expected.length);
    for (const [i, { c, t }] of expected.entries()) {
      const row = turns[i];
      expect(row.session_id).toBe(`${c.session_id}:turn${t.turn}`);
      expect(row.goal).toBe(t.user);
      expect(row.steps.map((s) => s.tool)).toEqual(t.gold_calls.map((g) => g.slice(0, g.indexOf('('))));
      expect(row.meta.group).toBe(c.session_id);
      expect(splitOf(row)).toBe(splitOf(c));
    }
  });
});
