// Issue #14: the new detectors (instruction-like text, the generic high-entropy secret, national ids, AWS
// secret keys by context) measured on the real traces in test/fixtures/traces. Those traces hold no planted
// instruction and no credential, so every hit is a false positive. The figures are printed; the bounds keep
// them low.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/domain/redact.js';
import { findInstructions } from '../../src/domain/untrusted-text.js';
import { TAU_DIR } from '../support/tau.js';

const FILES = ['tau-dev.jsonl', 'tau-retail-extra.jsonl', 'bfcl-multi-turn-base.jsonl'];

interface Texts {
  goals: string[];
  /** Arguments (as JSON), results and errors of every call. */
  calls: string[];
}

function textsOf(file: string): Texts {
  const recs = readFileSync(join(TAU_DIR, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { goal: string; steps: { args?: unknown; result?: unknown; error?: string }[] });
  return {
    goals: recs.map((r) => r.goal),
    calls: recs.flatMap((r) =>
      r.steps
        .flatMap((s) => [
          JSON.stringify(s.args ?? {}),
          typeof s.result === 'string' ? s.result : JSON.stringify(s.result ?? ''),
          s.error ?? '',
        ])
        .filter(Boolean),
    ),
  };
}

const NEW_KINDS = /\[REDACTED:(high_entropy|national_id|aws_key)\]/g;

describe('false-positive rates of the new detectors on the real traces', () => {
  const all = FILES.map((f) => ({ file: f, ...textsOf(f) }));
  const total = all.reduce((n, t) => n + t.goals.length + t.calls.length, 0);

  it('instruction detection flags no goal, argument, result or error of the real traces', () => {
    const flagged: string[] = [];
    for (const t of all)
      for (const text of [...t.goals, ...t.calls])
        if (findInstructions(text).length) flagged.push(`${t.file}: ${text.slice(0, 120)}`);
    console.log(
      `instruction detector: ${flagged.length} of ${total} texts flagged (${((100 * flagged.length) / total).toFixed(3)}%)`,
    );
    expect(total).toBeGreaterThan(10_000);
    expect(flagged.length / total).toBeLessThan(0.001);
  });

  it('the generic high-entropy, national-id and AWS-secret rules redact (almost) nothing in the real traces', () => {
    const hits: string[] = [];
    for (const t of all) {
      for (const text of [...t.goals, ...t.calls]) {
        const out = redactText(text);
        for (const m of out.matchAll(NEW_KINDS))
          hits.push(`${t.file}: ${m[1]} in ${out.slice(Math.max(0, m.index - 60), m.index + 40)}`);
      }
    }
    const texts = new Set(hits.map((h) => h.split(' in ')[1])).size;
    console.log(
      `new redaction kinds: ${hits.length} hits in ${texts} of ${total} texts (${((100 * texts) / total).toFixed(3)}%)`,
    );
    if (hits.length) console.log(hits.slice(0, 20).join('\n'));
    expect(texts / total).toBeLessThan(0.001);
  });
});
