import { describe, expect, it } from 'vitest';
import { capAtWordBoundary, codePointLength, collapseWhitespace } from './text.js';

describe('text helpers', () => {
  it('counts code points, so an emoji is one character', () => {
    expect(codePointLength('a😀b')).toBe(3);
  });

  it('caps at a word boundary, or hard when one word is too long', () => {
    expect(capAtWordBoundary('alpha beta gamma', 10)).toBe('alpha beta');
    expect(capAtWordBoundary('alpha beta gamma', 9)).toBe('alpha');
    expect(capAtWordBoundary('alphabetagamma', 5)).toBe('alpha');
    expect(capAtWordBoundary('short', 10)).toBe('short');
    expect(capAtWordBoundary('😀😀😀', 2)).toBe('😀😀');
  });

  it('collapses whitespace runs and trims', () => {
    expect(collapseWhitespace('  a \n\t b  ')).toBe('a b');
  });
});
