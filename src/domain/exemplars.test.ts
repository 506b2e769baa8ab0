import { describe, expect, it } from 'vitest';
import { chooseExemplars, exemplarsWithout, MAX_EXEMPLARS, packExemplars, unpackExemplars } from './exemplars.js';

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

describe('exemplarsWithout', () => {
  const a = new Float32Array([1, 0, 0]);
  const b = new Float32Array([0, 1, 0]);
  const packed = packExemplars([a, b])!;
  it('drops the exemplars that are one of the vectors (whatever their length), keeps the rest', () => {
    expect(exemplarsWithout(packed, [new Float32Array([0, 2, 0])])).toEqual(packExemplars([a]));
    expect(exemplarsWithout(packed, [a, b])).toBeNull();
  });
  it('says nothing changed when none is there', () => {
    expect(exemplarsWithout(packed, [new Float32Array([0, 0, 1])])).toBeUndefined();
    expect(exemplarsWithout(packed, [new Float32Array([0.7, 0.7, 0])])).toBeUndefined();
  });
});
