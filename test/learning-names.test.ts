import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEvalFile } from '../src/eval/dataset.js';
import { openMemory, type Memory } from '../src/index.js';
import { normalizeGoal } from '../src/domain/normalize-goal.js';
import { tempDbPath } from './support/tau.js';

// What a planner or a person reads first: the names and descriptions learned from real traces, on the defaults.
const TRACES = join(import.meta.dirname, 'fixtures', 'traces');

/** Verbs a task name may start with. */
const VERBS = new Set(
  'add book cancel change check copy create escalate exchange fill find fix list modify move place plan post remove return send set share track update write'.split(
    ' ',
  ),
);

const opened: { memory: Memory; path: string }[] = [];
afterAll(async () => {
  for (const { memory, path } of opened) {
    await memory.close();
    rmSync(dirname(path), { recursive: true, force: true });
  }
});

async function learn(file: string) {
  const path = tempDbPath('skillsmith-names-');
  const memory = await openMemory({ db: path, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
  opened.push({ memory, path });
  const sessions = loadEvalFile(join(TRACES, file), { label: 'meta.family' }).sessions;
  await memory.ingest(sessions.map((s) => s.session));
  await memory.synthesize();
  const skills = (await memory.skills.list()).filter((s) => s.corpus === 'internal' && !s.supersededBy);
  const goals = sessions.flatMap((s) => [s.session.goal, ...(s.firstUserMessage ? [s.firstUserMessage] : [])]);
  return { skills, goals };
}

/** Every run of six words of a text, lower-cased: a description holding one copies that request. */
function sixWordRuns(text: string): string[] {
  const words = normalizeGoal(text).toLowerCase().split(/\s+/).filter(Boolean);
  return words.slice(0, Math.max(0, words.length - 5)).map((_, i) => words.slice(i, i + 6).join(' '));
}

describe('learned names and descriptions on real traces', () => {
  for (const file of ['tau-dev.jsonl', 'tau-retail-extra.jsonl', 'bfcl-multi-turn-base.jsonl']) {
    it(`${file}: every name is a verb and its object, every description says what and when, quoting no request`, async () => {
      const { skills, goals } = await learn(file);
      expect(skills.length).toBeGreaterThan(3);
      const runs = new Set(goals.flatMap(sixWordRuns));
      for (const s of skills) {
        const words = s.name.split('-');
        expect(VERBS.has(words[0]), s.name).toBe(true);
        expect(words.filter((w) => !/^\d+$/.test(w)).length, s.name).toBeGreaterThanOrEqual(2);
        const stems = words.map((w) => w.replace(/s$/, ''));
        expect(new Set(stems).size, s.name).toBe(stems.length);
        expect(s.name, s.name).not.toMatch(/transfer|human-agent/);
        expect(s.description.length).toBeLessThanOrEqual(1024);
        expect(s.description, s.name).toMatch(/: .+\. Use when a user /);
        expect(s.description, s.name).not.toMatch(/<[a-z_]+>|\{[a-z_]+\}/);
        for (const run of sixWordRuns(s.description)) expect(runs.has(run), `${s.name}: "${run}"`).toBe(false);
      }
    });
  }

  it('tau-dev.jsonl: the kinds a colleague would name are named so', async () => {
    const { skills } = await learn('tau-dev.jsonl');
    const names = skills.map((s) => s.name);
    for (const expected of [
      'fix-phone-service',
      'fix-mms-messages',
      'fix-mobile-data',
      'exchange-delivered-order-items',
      'return-delivered-order-items',
    ])
      expect(names).toContain(expected);
    // Sessions that only looked a flight change up (and answered, or handed over) are not named a change.
    expect(names).toContain('check-flight-change');
    expect(names.some((n) => /^(change|update)-/.test(n) && /flight/.test(n))).toBe(false);
    expect(names.some((n) => n.startsWith('cancel-pending-order'))).toBe(true);
  });
});
