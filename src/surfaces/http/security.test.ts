import { describe, expect, it } from 'vitest';
import { checkBind, isLoopback } from './security.js';

describe('trust boundary', () => {
  it('knows the loopback names', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', 'app.localhost'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '192.168.1.4', '::', 'example.com', 'localhost.example.com', '128.0.0.1'])
      expect(isLoopback(h), h).toBe(false);
  });

  it('binds loopback freely, anything else only with a token of at least 16 characters', () => {
    expect(() => checkBind({ host: '127.0.0.1' })).not.toThrow();
    expect(() => checkBind({ host: '0.0.0.0' })).toThrow(/without a token/);
    expect(() => checkBind({ host: '0.0.0.0', token: 'x'.repeat(16) })).not.toThrow();
    expect(() => checkBind({ host: '0.0.0.0', token: 'short' })).toThrow(/at least 16/);
    expect(() => checkBind({ host: '127.0.0.1', requireToken: true })).toThrow(/needs a token/);
  });
});
