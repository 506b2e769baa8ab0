import { describe, expect, it } from 'vitest';
import { otherSplit, parseEvalText, readLabel, selectSplit, validateLabelPath } from './dataset.js';
import { defaultName } from '../surfaces/cli/commands/eval.js';

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const text = [
  line({
    session_id: 's1',
    goal: 'Refund order #1',
    success: true,
    steps: [{ tool: 'find' }, { tool: 'refund', ok: false }],
    meta: { family: 'retail:refund', task_id: 1, first_user_message: 'Hi, I want a refund' },
  }),
  line({
    session_id: 's2',
    goal: 'Cancel order #2',
    success: false,
    steps: [{ tool: 'find' }],
    meta: { family: 'retail:cancel', task_id: 2, nested: { kind: 7 } },
  }),
  line({ session_id: 's1', goal: 'duplicate id', success: true, steps: [] }),
  'not json',
  line({ session_id: 's3', goal: 'No labels here', outcome: 'unknown', steps: [] }),
].join('\n');

describe('parseEvalText', () => {
  const loaded = parseEvalText(text, { file: 'x.jsonl', label: 'meta.family' });

  it('reads the label for scoring and strips every label from what the engine gets', () => {
    expect(loaded.sessions.map((s) => s.kind)).toEqual(['retail:refund', 'retail:cancel', null]);
    for (const s of loaded.sessions) expect(s.session.labels).toBeNull();
  });
  it('keeps the first user message as a second query text', () => {
    expect(loaded.sessions.map((s) => s.firstUserMessage)).toEqual(['Hi, I want a refund', null, null]);
  });
  it('maps outcomes and calls as ingest does, keeps the first record of an id and reports bad lines', () => {
    const [s1] = loaded.sessions;
    expect(s1.session.outcome).toBe('success');
    expect(s1.session.calls.map((c) => [c.tool, c.ok])).toEqual([
      ['find', true],
      ['refund', false],
    ]);
    expect(s1.session.goal).toBe('Refund order #1');
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0].line).toBe(4);
  });
  it('splits deterministically by task, and selects halves', () => {
    for (const s of loaded.sessions) expect(['tune', 'test']).toContain(s.split);
    const tune = selectSplit(loaded.sessions, 'tune');
    const test = selectSplit(loaded.sessions, 'test');
    expect(tune.length + test.length).toBe(loaded.sessions.length);
    expect(selectSplit(loaded.sessions, 'all')).toHaveLength(3);
    expect(otherSplit('tune')).toBe('test');
    expect(otherSplit('test')).toBe('tune');
  });
});

describe('label paths', () => {
  const { sessions } = parseEvalText(text, { file: 'x.jsonl', label: 'meta.nested.kind' });
  it('reads nested meta keys and stringifies non-strings', () => {
    expect(sessions[1].kind).toBe('7');
    expect(sessions[0].kind).toBeNull();
  });
  it('reads top-level fields', () => {
    expect(readLabel(sessions[0].session, null, 'session_id')).toBe('s1');
  });
  it('rejects paths that cannot name a label', () => {
    expect(() => validateLabelPath('meta.family')).not.toThrow();
    expect(() => validateLabelPath('family')).toThrow(/--label/);
    expect(() => validateLabelPath('meta')).toThrow(/--label/);
    expect(() => validateLabelPath('')).toThrow(/--label/);
  });
});

describe('report names', () => {
  it('names a split run after the file and the half, and a cross-file run after both files', () => {
    expect(defaultName('/d/tau-dev.jsonl', 'tune', '/d/tau-dev.jsonl', 'test')).toBe('tau-dev-test');
    expect(defaultName('/d/tau-dev.jsonl', 'all', '/d/Tau Retail.jsonl', 'all')).toBe('tau-dev-to-tau-retail');
  });
});
