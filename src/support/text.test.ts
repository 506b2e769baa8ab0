import { describe, expect, it } from 'vitest';
import { keepFirst, keepLast } from './text.js';

/** Whether a string holds half a character (a lone surrogate), which a UTF-8 file stores as U+FFFD. */
const broken = (s: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('cutting text without cutting a character in two', () => {
  it('keeps at most max code units, one fewer rather than half an emoji or a rare Chinese character', () => {
    const text = `x${'😀'.repeat(10)}𠮷`;
    for (let max = 0; max <= text.length + 1; max++) {
      const head = keepFirst(text, max);
      expect(head.length).toBeLessThanOrEqual(max);
      expect(head.length).toBeGreaterThanOrEqual(max - 1);
      expect(broken(head), `keepFirst at ${max}`).toBe(false);
      expect(text.startsWith(head)).toBe(true);
      const tail = keepLast(text, max);
      expect(tail.length).toBeLessThanOrEqual(max);
      expect(tail.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
      expect(broken(tail), `keepLast at ${max}`).toBe(false);
      expect(text.endsWith(tail)).toBe(true);
    }
    expect(keepFirst('订单已取消', 3)).toBe('订单已');
  });
});
