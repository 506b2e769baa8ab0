import { describe, expect, it } from 'vitest';
import type { Session } from '../domain/types.js';
import {
  globMatch,
  hashText,
  protectArgs,
  protectError,
  protectResult,
  protectSession,
  resolvePrivacy,
  toolPolicy,
} from './privacy.js';

const OPENAI_KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ0aB';
const GITHUB = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const EMAIL = 'mia.li3818@example.com';
const CARD = '4111 1111 1111 1111';
const SECRETS = [OPENAI_KEY, GITHUB, AWS, JWT, EMAIL, CARD, 'hunter2-pass'];

function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s) || text.includes(s.slice(0, 12)));
}

describe('capture privacy', () => {
  const policy = resolvePrivacy();

  it('redacts secrets and personal data in args (values, nested keys) and results by default', () => {
    const args = protectArgs(policy, 'login', {
      user: EMAIL,
      password: 'hunter2-pass',
      nested: { api_key: 'abc', note: `use ${OPENAI_KEY}` },
      list: [GITHUB, 3],
    });
    const text = JSON.stringify(args);
    expect(leaks(text)).toEqual([]);
    expect(args).toEqual({
      user: '[REDACTED:email]',
      password: '[REDACTED:password]',
      nested: { api_key: '[REDACTED:api_key]', note: 'use [REDACTED:api_key]' },
      list: ['[REDACTED:token]', 3],
    });
    const result = protectResult(policy, 'login', `ok: token=${JWT} card ${CARD} aws ${AWS}`, 2000);
    expect(leaks(result)).toEqual([]);
    expect(result).toContain('[REDACTED:card]');
  });

  it('caps a result after redaction, so a secret on the cap boundary is never half-stored', () => {
    const text = `${'x'.repeat(30)} ${OPENAI_KEY} tail`;
    const stored = protectResult(policy, 't', text, 40);
    expect(stored.startsWith(`${'x'.repeat(30)} [REDACTED`)).toBe(true);
    expect(stored).toMatch(/… \(truncated\)$/);
    expect(stored).not.toContain('sk-proj');
    // What capping first would have stored: a fragment of the key.
    expect(text.slice(0, 40)).toContain('sk-proj');
  });

  it('hash: personal data becomes a keyed hash, equal values stay equal, credentials stay plain markers', () => {
    const p = resolvePrivacy({ args: 'hash', results: 'hash', salt: 'pepper' });
    const a = protectArgs(p, 'find_user_id_by_email', { email: EMAIL });
    const r = protectResult(p, 'get_user_details', `{"email": "${EMAIL}", "token": "${GITHUB}"}`, 2000);
    const other = protectArgs(p, 'find_user_id_by_email', { email: 'someone.else@example.com' });
    expect(a.email).toMatch(/^\[HASH:email:[0-9a-f]{10}\]$/);
    expect(r).toContain(a.email as string); // the same customer in the args and in an earlier result: data flow survives
    expect(other.email).not.toBe(a.email);
    expect(r).toContain('[REDACTED:token]');
    expect(leaks(JSON.stringify(a) + r)).toEqual([]);
    // Another salt, another hash.
    expect(protectArgs(resolvePrivacy({ args: 'hash', salt: 'other' }), 'x', { email: EMAIL }).email).not.toBe(a.email);
    // A phone under a phone key (bare digits) is hashed too.
    expect(protectArgs(p, 'x', { phone: '5551232002' }).phone).toMatch(/^\[HASH:phone:/);
  });

  it('hashText never returns a value it hashed, whatever the neighbouring text (adjacent markers, repeats)', () => {
    const samples = [
      `${EMAIL}${EMAIL}`,
      `${EMAIL} ${EMAIL} ${CARD}`,
      `a=${EMAIL};b=${OPENAI_KEY};c=${EMAIL}`,
      `password=hunter2-pass ${EMAIL}`,
      `[REDACTED:email] and ${EMAIL}`,
      `${CARD}`,
    ];
    for (const s of samples) {
      const h = hashText(s, '');
      expect(leaks(h), `${s} -> ${h}`).toEqual([]);
    }
    expect(hashText(`${EMAIL} x ${EMAIL}`, '').match(/\[HASH:email:[0-9a-f]+\]/g)).toHaveLength(2);
  });

  it('drop keeps the call but not its data; keep stores as is', () => {
    const p = resolvePrivacy({
      tools: { secret_tool: { args: 'drop', results: 'drop' }, echo: { args: 'keep', results: 'keep' } },
    });
    expect(protectArgs(p, 'secret_tool', { a: 1 })).toEqual({});
    expect(protectResult(p, 'secret_tool', 'abc', 100)).toBe('');
    expect(protectError(p, 'secret_tool', `boom ${OPENAI_KEY}`)).toBe('error (details dropped by the privacy policy)');
    expect(protectArgs(p, 'echo', { email: EMAIL })).toEqual({ email: EMAIL });
    expect(protectResult(p, 'echo', EMAIL, 100)).toBe(EMAIL);
  });

  it('allow and deny lists: per-tool argument lists, and tool lists with globs', () => {
    const p = resolvePrivacy({
      tools: { 'get_*': { allowArgs: ['order_id'] }, update_profile: { denyArgs: ['ssn', 'dob'] } },
      denyTools: ['*_credentials'],
    });
    expect(protectArgs(p, 'get_order', { order_id: '#W1', note: 'private' })).toEqual({ order_id: '#W1' });
    expect(
      protectArgs(p, 'update_profile', {
        name: 'Ann',
        ssn: '078-05-1120',
        address: { dob: '1990-01-01', city: 'Austin' },
      }),
    ).toEqual({ name: 'Ann', address: { city: 'Austin' } });
    expect(toolPolicy(p, 'fetch_credentials')).toEqual({ args: 'drop', results: 'drop' });
    const allow = resolvePrivacy({ allowTools: ['search_*'] });
    expect(toolPolicy(allow, 'search_flights').args).toBe('redact');
    expect(toolPolicy(allow, 'book_flight')).toEqual({ args: 'drop', results: 'drop' });
    expect(globMatch('a?c*', 'abcdef')).toBe(true);
    expect(globMatch('a.c', 'abc')).toBe(false);
  });

  it('rejects a bad policy with the key named', () => {
    expect(() => resolvePrivacy({ args: 'scramble' } as never)).toThrow(/args/);
    expect(() => resolvePrivacy({ tools: { x: { mode: 'drop' } } } as never)).toThrow(/mode|Unrecognized/);
  });

  it('protects a whole session: goal, calls, errors and labels', () => {
    const s: Session = {
      id: 's1',
      namespace: 'default',
      goal: `My key ${OPENAI_KEY} stopped working, email ${EMAIL}`,
      outcome: 'unknown',
      reward: null,
      agentId: null,
      source: null,
      startedAt: 'x',
      endedAt: null,
      labels: { first_user_message: `I am ${EMAIL}` },
      calls: [
        {
          position: 0,
          tool: 'rotate_key',
          args: { key: OPENAI_KEY },
          result: `new key ${GITHUB}`,
          ok: false,
          error: `invalid ${AWS}`,
          durationMs: null,
          at: null,
        },
      ],
    };
    const out = protectSession(s, policy, 2000);
    expect(leaks(JSON.stringify(out))).toEqual([]);
    expect(out.goal).toBe('My key [REDACTED:api_key] stopped working, email [REDACTED:email]');
    expect(out.calls[0].error).toBe('invalid [REDACTED:aws_key]');
    expect(s.goal).toContain(OPENAI_KEY); // the input is not mutated
  });
});

describe('prose credentials', () => {
  it('redacts "password X" and "password is X" when X is not a plain word', async () => {
    const { redactCapture } = await import('./privacy.js');
    expect(redactCapture('Log me in, password Tr0ub4dor-and-3-horses, thanks')).toBe(
      'Log me in, password [REDACTED:password], thanks',
    );
    expect(redactCapture('my passcode is 4921.')).toBe('my passcode is [REDACTED:password].');
    // A password that ends in `!` is redacted whole: no piece of it is left after the marker.
    expect(redactCapture('my password is hunter2!')).toBe('my password is [REDACTED:password]');
    expect(redactCapture('use password Tr0ub4dor&3!, then log in')).toBe(
      'use password [REDACTED:password], then log in',
    );
    expect(redactCapture('Please reset my password today')).toBe('Please reset my password today');
    // Quoted, after a colon, or given as what it was changed to; a PIN said as one.
    for (const [text, stored] of [
      ['my password is "hunter2"', 'my password is "[REDACTED:password]"'],
      ["password is 'Tr0ub4dor&3'", "password is '[REDACTED:password]'"],
      ['the passphrase is "open sesame 42"', 'the passphrase is "[REDACTED:password]"'],
      ['the password is "sunshine"', 'the password is "[REDACTED:password]"'],
      ['my password is: hunter22', 'my password is: [REDACTED:password]'],
      ['password was changed to Xy9#kk2 yesterday', 'password was changed to [REDACTED:password] yesterday'],
      ['my pin is 4921', 'my pin is [REDACTED:password]'],
      ['the pin number 0007 is wrong', 'the pin number [REDACTED:password] is wrong'],
      ['pin: 12345678', 'pin: [REDACTED:password]'],
    ])
      expect(redactCapture(text)).toBe(stored);
    // Words about passwords and pins are no credential.
    for (const text of [
      'my password was reset',
      'Password must be at least 8 characters',
      "password isn't working",
      'Pin 2024 results to the top',
      'pin the version to 4.2.1',
    ])
      expect(redactCapture(text)).toBe(text);
    expect(redactCapture('password=abc123')).toBe('password=[REDACTED:password]');
  });

  it('redacts a key or token named in words before it, hex included, and leaves the words alone', async () => {
    const { redactCapture } = await import('./privacy.js');
    expect(redactCapture('integration created, api key 8f3a9c2e7b1d4f6a0e5c9b2d7a4f1e8c')).toBe(
      'integration created, api key [REDACTED:api_key]',
    );
    expect(redactCapture('the secret is 5f1d9a8b7c6d5e4f3a2b1c0d')).toBe('the secret is [REDACTED:secret]');
    expect(redactCapture('access token Zx81bQ0pLm7Rt5Yh3Kw2')).toBe('access token [REDACTED:token]');
    expect(redactCapture('the token expired yesterday; request a new access token from the console')).toBe(
      'the token expired yesterday; request a new access token from the console',
    );
  });
});
