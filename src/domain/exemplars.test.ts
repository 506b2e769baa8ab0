import { describe, expect, it } from 'vitest';
import {
  chooseExemplars,
  chooseSourcedExemplars,
  exemplarCandidates,
  exemplarsForgetting,
  MAX_EXEMPLARS,
  packExemplars,
  unpackExemplars,
} from './exemplars.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('recall exemplars', () => {
  it('keeps distinct wordings and drops near-duplicates', () => {
    const a = unit(1, 0, 0);
    const chosen = chooseExemplars([a, unit(1, 0.01, 0), unit(0, 1, 0), unit(0, 0, 1)]);
    expect(chosen).toHaveLength(3);
    expect(chosen.some((v) => v[1] > 0.99)).toBe(true);
    expect(chosen.some((v) => v[2] > 0.99)).toBe(true);
  });

  it('keeps at most MAX_EXEMPLARS, spread out, starting from the most central one', () => {
    const many = Array.from({ length: 40 }, (_, i) => unit(Math.cos(i / 6), Math.sin(i / 6), 0.2));
    const chosen = chooseExemplars(many);
    expect(chosen.length).toBe(MAX_EXEMPLARS);
    expect(chooseExemplars([])).toEqual([]);
    expect(chooseExemplars([new Float32Array(3)])).toEqual([]);
  });

  it('packs and unpacks vectors of one dimension; a packing that does not fit gives none', () => {
    const vs = [unit(1, 0, 0), unit(0, 1, 0)];
    const packed = packExemplars(vs)!;
    expect(packed).toHaveLength(6);
    expect(unpackExemplars(packed, 3).map((v) => Array.from(v))).toEqual(vs.map((v) => Array.from(v)));
    expect(unpackExemplars(packed, 4)).toEqual([]);
    expect(unpackExemplars(null, 3)).toEqual([]);
    expect(packExemplars([])).toBeNull();
  });
});

describe('exemplarsForgetting', () => {
  const a = new Float32Array([1, 0, 0]);
  const b = new Float32Array([0, 1, 0]);
  const packed = packExemplars([a, b])!;
  const none = new Set<string>();
  it('of unknown source: drops the exemplars that are one of the vectors (whatever their length), keeps the rest', () => {
    const stored = { exemplars: packed, exemplarSources: null };
    expect(exemplarsForgetting(stored, none, [new Float32Array([0, 2, 0])])).toEqual({
      exemplars: packExemplars([a]),
      exemplarSources: null,
    });
    expect(exemplarsForgetting(stored, none, [a, b])).toEqual({ exemplars: null, exemplarSources: null });
    expect(exemplarsForgetting(stored, none, [new Float32Array([0, 0, 1])])).toBeUndefined();
    expect(exemplarsForgetting(stored, none, [new Float32Array([0.7, 0.7, 0])])).toBeUndefined();
    expect(exemplarsForgetting(stored, new Set(['s1']))).toBeUndefined();
  });
  it('of known sources: takes the forgotten sessions out, drops an exemplar none is left of, never matches vectors', () => {
    const stored = { exemplars: packed, exemplarSources: [['s1', 's2'], ['s3']] };
    // s1 asked what s2 asked: the wording stays, s2's; the same vector given does not take it.
    expect(exemplarsForgetting(stored, new Set(['s1']), [a])).toEqual({
      exemplars: packed,
      exemplarSources: [['s2'], ['s3']],
    });
    expect(exemplarsForgetting(stored, new Set(['s3']))).toEqual({
      exemplars: packExemplars([a]),
      exemplarSources: [['s1', 's2']],
    });
    expect(exemplarsForgetting(stored, new Set(['s1', 's2', 's3']))).toEqual({
      exemplars: null,
      exemplarSources: null,
    });
    expect(exemplarsForgetting(stored, new Set(['s9']), [a, b])).toBeUndefined();
  });
  it('mixed: a known one by its sessions, an unknown one by its vector', () => {
    const stored = { exemplars: packed, exemplarSources: [['s1'], null] };
    expect(exemplarsForgetting(stored, new Set(['s1']), [b])).toEqual({ exemplars: null, exemplarSources: null });
    expect(exemplarsForgetting(stored, new Set(['s1']))).toEqual({
      exemplars: packExemplars([b]),
      exemplarSources: null,
    });
  });
});

describe('chooseSourcedExemplars', () => {
  const a = new Float32Array([1, 0, 0]);
  const b = new Float32Array([0, 1, 0]);
  it('chooses as chooseExemplars does, each with every session of that very wording', () => {
    const chosen = chooseSourcedExemplars([
      { vector: a, sources: ['s1'] },
      { vector: b, sources: ['s2'] },
      { vector: a.slice(), sources: ['s3'] },
    ]);
    expect(chosen.exemplars).toEqual(packExemplars(chooseExemplars([a, b, a])));
    const bySource = unpackExemplars(chosen.exemplars, 3).map((v, i) => [Array.from(v), chosen.exemplarSources![i]]);
    expect(bySource).toContainEqual([
      [1, 0, 0],
      ['s1', 's3'],
    ]);
    expect(bySource).toContainEqual([[0, 1, 0], ['s2']]);
    // A near-duplicate that is another wording is not one of its sources (its vector is not stored).
    const near = unit(1, 0.1, 0);
    const one = chooseSourcedExemplars([
      { vector: a, sources: ['s1'] },
      { vector: near, sources: ['s4'] },
    ]);
    expect(one.exemplarSources).toHaveLength(1);
    expect(one.exemplarSources![0]).toHaveLength(1);
  });
  it('keeps unknown sources unknown, and merges stored exemplars as candidates', () => {
    const old = { exemplars: packExemplars([a])!, exemplarSources: null };
    expect(exemplarCandidates(old, 3)).toEqual([{ vector: a, sources: null }]);
    expect(chooseSourcedExemplars(exemplarCandidates(old, 3)).exemplarSources).toBeNull();
    const merged = chooseSourcedExemplars([...exemplarCandidates(old, 3), { vector: b, sources: ['s2'] }]);
    expect(merged.exemplarSources).toEqual([null, ['s2']]);
    // Sources that do not fit the packing are not trusted.
    expect(exemplarCandidates({ exemplars: packExemplars([a, b]), exemplarSources: [['s1']] }, 3)).toEqual([
      { vector: a, sources: null },
      { vector: b, sources: null },
    ]);
  });
});
