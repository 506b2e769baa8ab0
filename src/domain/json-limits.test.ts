import { describe, expect, it } from 'vitest';
import { exceedsDepth, jsonBytesWithin, jsonSyntaxReason, MAX_JSON_DEPTH } from './json-limits.js';

const exact = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

function nested(levels: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

describe('jsonBytesWithin', () => {
  it('never gives less than the bytes JSON.stringify writes', () => {
    const values: unknown[] = [
      'plain',
      'quote " backslash \\ newline \n tab \t bell \u0007',
      'naïve café – 日本語 😀',
      0,
      -2.2250738585072014e-308,
      1e21,
      Number.NaN,
      true,
      null,
      [],
      {},
      [undefined, () => 1, Symbol('s'), 1],
      { a: undefined, b: () => 1, c: 'x' },
      { 'ключ "quoted"': ['é', { deep: [1, 2, { x: null }] }] },
      Object.assign(Object.create(null), { bare: 'object' }),
      {
        calls: Array.from({ length: 50 }, (_, i) => ({ tool: `t${i}`, args: { id: `#W${i}` }, result: 'r'.repeat(i) })),
      },
    ];
    for (const v of values) {
      const bound = jsonBytesWithin(v, 1e9);
      expect(bound, JSON.stringify(v)).toBeGreaterThanOrEqual(exact(v) ?? 0);
    }
  });

  it('counts depth as exceedsDepth does: the deepest allowed value passes, one level more does not', () => {
    expect(exceedsDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonBytesWithin(nested(MAX_JSON_DEPTH), 1e9)).toBeGreaterThan(0);
    expect(exceedsDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonBytesWithin(nested(MAX_JSON_DEPTH + 1), 1e9)).toBe(-1);
  });

  it('gives -1 over the byte budget, so the caller measures exactly', () => {
    const v = { text: 'x'.repeat(1000) };
    expect(jsonBytesWithin(v, 100_000)).toBeGreaterThanOrEqual(exact(v));
    expect(jsonBytesWithin(v, 1000)).toBe(-1);
  });

  it('gives -1 where no cheap bound exists: toJSON, class instances, boxed numbers, bigints, cycles', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    for (const v of [
      { at: new Date() },
      { p: new Point(1) },
      { n: new Number(1e300) },
      { b: 1n },
      { custom: { toJSON: () => 'x'.repeat(10_000) } },
      cycle,
    ])
      expect(jsonBytesWithin(v, 1e9)).toBe(-1);
  });

  it('walks a 100,000-level value without growing the stack', () => {
    expect(jsonBytesWithin(nested(100_000), 1e9)).toBe(-1);
  });
});

describe('jsonSyntaxReason', () => {
  const reasonOf = (text: string) => {
    try {
      JSON.parse(text);
    } catch (e) {
      return jsonSyntaxReason((e as Error).message);
    }
    throw new Error('parsed');
  };

  it('says what is wrong without quoting the text around it', () => {
    for (const text of [
      'sk-proj-Zx81kQ2mW7vN4pR9tL3bY6cJ0aQ',
      '{"goal": "deploy", "password": Hunter2Secret1234}',
      '{"a": 1, "token": ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R}',
      'xyz',
    ]) {
      const reason = reasonOf(text);
      expect(reason).toMatch(/^Unexpected token '.'$/);
    }
    expect(reasonOf('{"a": 1} x')).toMatch(/^Unexpected non-whitespace character after JSON at position 9$/);
    expect(reasonOf('{"a": ')).toBe('Unexpected end of JSON input');
  });
});
