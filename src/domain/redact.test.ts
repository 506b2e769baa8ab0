import { describe, expect, it } from 'vitest';
import { findSecrets, redactCapture, redactText, redactValue } from './redact.js';

/** Redacts `secret` inside `context` and checks the marker replaced it. */
function expectRedacted(context: string, secret: string, kind: string) {
  const out = redactText(context.replace('%s', secret));
  expect(out).not.toContain(secret);
  expect(out).toContain(`[REDACTED:${kind}]`);
  return out;
}

describe('redactText: secrets', () => {
  it.each([
    ['OpenAI key', 'key is %s ok', 'sk-abc123DEF456ghi789JKL012mno345', 'api_key'],
    ['OpenAI project key', 'OPENAI_API_KEY=%s', 'sk-proj-AbC123_dEf456-GhI789jKl012MnO345pQr678', 'api_key'],
    ['GitHub ghp_', 'push with %s', 'ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R', 'token'],
    ['GitHub gho_', '"%s"', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', 'token'],
    ['GitHub ghs_', '(%s)', 'ghs_abcdefghijklmnopqrstuvwxyz0123456789', 'token'],
    ['GitHub fine-grained', 'pat: %s', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF', 'token'],
    ['AWS access key id', 'aws_access_key_id %s', 'AKIAIOSFODNN7EXAMPLE', 'aws_key'],
    ['AWS session key id', '%s,', 'ASIAY34FZKBOKMUTVV7A', 'aws_key'],
    ['Slack bot token', 'slack %s', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'token'],
    ['Slack user token', 'slack %s', 'xoxp-123456789012-123456789012-123456789012-abcdef1234567890', 'token'],
    ['Slack app token', 'slack %s.', 'xoxa-2-123456789012-abcdefABCDEF', 'token'],
    [
      'JWT',
      'cookie %s;',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      'jwt',
    ],
  ])('%s', (_name, context, secret, kind) => {
    expectRedacted(context, secret, kind);
  });

  it('redacts bearer tokens and keeps the header readable', () => {
    const out = expectRedacted('Authorization: Bearer %s', 'abc123def456ghi789', 'bearer');
    expect(out).toBe('Authorization: Bearer [REDACTED:bearer]');
    expect(redactText('curl -H "authorization: Basic dXNlcjpwYXNzd29yZA=="')).toBe(
      'curl -H "authorization: Basic [REDACTED:token]"',
    );
  });

  it('redacts PEM private key blocks, also when the trace was cut before the END line', () => {
    const key = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nVJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1+fWIcPm15j9\n';
    const block = `-----BEGIN RSA PRIVATE KEY-----\n${key}-----END RSA PRIVATE KEY-----`;
    expect(redactText(`key:\n${block}\nnext line`)).toBe('key:\n[REDACTED:private_key]\nnext line');
    const cut = redactText(`{"pem": "-----BEGIN PRIVATE KEY-----\\n${key.slice(0, 40)}`);
    expect(cut).toBe('{"pem": "[REDACTED:private_key]');
  });

  it('redacts the password of a URL and keeps user and host', () => {
    expect(redactText('connect to postgres://admin:s3cretP4ss@db.example.com:5432/app now')).toBe(
      'connect to postgres://admin:[REDACTED:password]@db.example.com:5432/app now',
    );
    expect(redactText('redis://:hunter2@cache:6379')).toBe('redis://:[REDACTED:password]@cache:6379');
    expect(redactText('see https://example.com:8080/path?q=1')).toBe('see https://example.com:8080/path?q=1');
  });

  it('redacts key=value and JSON-style secrets, also escaped inside strings', () => {
    expect(redactText('login password=hunter2&user=bob')).toBe('login password=[REDACTED:password]&user=bob');
    expect(redactText('{"password": "correct horse battery staple", "user": "x"}')).toBe(
      '{"password": "[REDACTED:password]", "user": "x"}',
    );
    expect(redactText('{\\"db_password\\": \\"hunter2\\"}')).toBe('{\\"db_password\\": \\"[REDACTED:password]\\"}');
    expect(redactText("api_key: 'abcd1234'")).toBe("api_key: '[REDACTED:api_key]'");
    expect(redactText('"client_secret":"s3cr3t"')).toBe('"client_secret":"[REDACTED:secret]"');
    expect(redactText('access_token = tok_live_123')).toBe('access_token = [REDACTED:token]');
    expect(redactText('X-Api-Key: 0123abcd')).toBe('X-Api-Key: [REDACTED:api_key]');
    // Placeholder values are not secrets.
    expect(redactText('{"password": null, "token": "***"}')).toBe('{"password": null, "token": "***"}');
  });
});

describe('redactText: a sentence after a title is prose, a credential after a key is not', () => {
  it.each([
    ['password: hunter2', 'password: [REDACTED:password]'],
    ['Password: letmein', 'Password: [REDACTED:password]'],
    ['Password: Hunter2 is the one', 'Password: [REDACTED:password] is the one'],
    ['password: looks up', 'password: [REDACTED:password] up'],
    ['PASSWORD: abc def', 'PASSWORD: [REDACTED:password] def'],
    ['token=looks up', 'token=[REDACTED:token] up'],
    ['"Password": "looks up"', '"Password": "[REDACTED:password]"'],
  ])('%s', (text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });
});

describe('redactText: a password named in another language', () => {
  it.each([
    ['German', 'Passwort: %s'],
    ['German, in a sentence', 'Mein Passwort ist %s, bitte ändern'],
    ['French', 'mot de passe : %s'],
    ['Spanish', 'la contraseña es %s'],
    ['Portuguese', 'senha: %s'],
    ['Russian', 'пароль: %s'],
    ['Chinese, full-width colon', '密码：%s'],
    ['Japanese', 'パスワードは「%s」です'],
    ['Korean', '비밀번호는 %s 입니다'],
    ['Arabic', 'كلمة المرور: %s'],
    ['Hindi', 'पासवर्ड: %s'],
  ])('%s', (_name, context) => {
    expectRedacted(context, 'Sommer2024!x', 'password');
  });

  it('leaves requests that only talk about a password, and text in any script, as they are', () => {
    for (const text of [
      'Setz bitte das Passwort von Jonas zurück, er kommt nicht mehr rein.',
      "Réinitialise le mot de passe de Camille, elle n'arrive plus à se connecter.",
      'Passwort: vergessen',
      'パスワードを忘れてしまいました。再設定のリンクを送ってもらえますか？',
      'نسيت كلمة المرور، أرسل لي رابط إعادة التعيين من فضلك.',
      '请把这段很长的中文文本原样保留下来不要当成密钥处理因为它只是普通的句子而已谢谢你的帮助好吗',
      'Вот очень длинное слово: электроэнцефалографический',
    ])
      expect(redactText(text)).toBe(text);
  });

  it('takes a password under a key named in another language', () => {
    expect(redactValue({ passwort: 'geheim', kennwort: 'x1', contraseña: 'abc', senha: 'y' })).toEqual({
      passwort: '[REDACTED:password]',
      kennwort: '[REDACTED:password]',
      contraseña: '[REDACTED:password]',
      senha: '[REDACTED:password]',
    });
  });
});

describe('redactText: personal data', () => {
  it('redacts emails', () => {
    const out = expectRedacted('{"email": "%s", "dob": "1990-04-05"}', 'mia.li3818@example.com', 'email');
    expect(out).toBe('{"email": "[REDACTED:email]", "dob": "1990-04-05"}');
    expectRedacted('mail %s.', 'first.last+tag@sub.example.co.uk', 'email');
    // After a line break written as an escape (a JSON text), the address starts after the escape.
    expect(redactText('"note": "call me\\njohn.doe@example.com"')).toBe('"note": "call me\\n[REDACTED:email]"');
  });

  it('leaves code that puts an @ after a line break or a diff mark alone, and keeps its escapes whole', () => {
    // A Python decorator in a patch (`+@bp.get`) and in a JSON-escaped file body (`\n@bp.get`): no name before
    // the @. Before, `n@bp.get` read as an address and the marker ate the escape's letter, leaving `\[`.
    const patch = "*** Update File: app/routes.py\n+@bp.get('/health')\n+def health():";
    expect(redactText(patch)).toBe(patch);
    const escaped = '{"output": "from flask import Blueprint\\n\\n@bp.get(\'/items\')\\ndef items():"}';
    expect(redactText(escaped)).toBe(escaped);
    expect(() => JSON.parse(redactText(escaped))).not.toThrow();
    expect(redactText('@app.route("/")')).toBe('@app.route("/")');
  });

  it.each([
    ['555-123-2002'],
    ['(555) 123-4567'],
    ['555.123.4567'],
    ['1-800-555-0199'],
    ['+1 555 123 4567'],
    ['+1 (555) 123-4567'],
    ['+44 20 7946 0958'],
    ['+33 1 23 45 67 89'],
    ['+4915112345678'],
  ])('redacts the phone number %s', (phone) => {
    expect(redactText(`call ${phone} today`)).toBe('call [REDACTED:phone] today');
  });

  // Numbers as written at home, with the trunk 0 and no label or country code: a user pastes them, a CRM prints them.
  it.each([
    ['020 7946 0958'],
    ['030 12345678'],
    ['06 12 34 56 78'],
    ['06.12.34.56.78'],
    ['0412 345 678'],
    ['03-1234-5678'],
    ['(02) 9876 5432'],
    ['07700 900123'],
  ])('redacts the national number %s without a label', (phone) => {
    expect(redactText(`ring ${phone} today`)).toBe('ring [REDACTED:phone] today');
    expect(findSecrets(`ring ${phone}`, { personal: true }).map((m) => m.kind)).toEqual(['phone']);
  });

  it.each([
    ['a version', 'upgraded to v0.12.3 and 0.12.30'],
    ['an ISBN', 'isbn 0-306-40615-2'],
    ['a date in groups', 'due 07.12.2026 or 01 02 2024'],
    ['a zero-padded id too short to dial', 'item 0123 4567'],
    ['an international prefix 00', 'dial 0044 for the UK'],
    ['bare digits with no separator', 'ref 0123456789'],
    ['zip codes', 'zip 01234 and 05678'],
    ['decimals', 'weights 0.5 0.25 0.125'],
  ])('leaves alone %s that starts with 0', (_name, text) => {
    expect(redactText(text)).toBe(text);
  });

  it('redacts a bare phone number under a phone key', () => {
    expect(redactText('{"phone_number": "5551232002"}')).toBe('{"phone_number": "[REDACTED:phone]"}');
  });

  it.each([
    ['4111 1111 1111 1111'],
    ['4111-1111-1111-1111'],
    ['4242424242424242'],
    ['5555555555554444'],
    ['378282246310005'],
    ['3782 822463 10005'],
    ['6011111111111117'],
  ])('redacts the card number %s', (card) => {
    expect(redactText(`pay with ${card}.`)).toBe('pay with [REDACTED:card].');
  });

  it('leaves digit runs that fail the Luhn check', () => {
    expect(redactText('pay with 4111 1111 1111 1112')).toBe('pay with 4111 1111 1111 1112');
    expect(redactText('imei 234567890123456')).toBe('imei 234567890123456');
  });
});

describe('redactText: legitimate text stays unchanged', () => {
  it.each([
    'You are mia_li_3668. You want to fly from New York to Seattle on May 20 (one way).',
    'reservation XEWRD9 and order #W8665881, flight HAT069 departs 07:00:00 on 2024-05-20',
    'total $1,234.56, refund to credit_card_4421486 (last_four 7447), gift_card_7194529',
    '{"product_id": "7363354090", "item_id": "3812493782", "zip": "78750", "dob": "1985-06-15"}',
    '"simulation_id": "ce9e8fd9-9282-4938-8f0c-955f359f9394", "model": "gpt-4.1-2025-04-14"',
    'calculate 152 + 103 = 255.0; timestamp 1716200000000; 2025-01-15 10:00:00',
    'line L1002, device D1002, customer C1001, version 1.2.3, ip 192.168.1.20',
    'Basic Economy is the bearer of good news; max_tokens=100, token count 5',
    'ask for the password of the account; the secret ingredient is love',
    'order W5061109 costs 3,000 USD, ships in 3-4 days, call at 10am',
    // A skill's own description: a title ending in a secret's name, a colon, then a sentence.
    'Notify Owner Password: looks up account and rotate password (3 steps that worked for agents)',
    'Refresh Api Token: lists the sessions, then revokes the old token',
  ])('%s', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe('redactValue', () => {
  it('deep-redacts strings and whole values under secret keys', () => {
    const input = {
      user_id: 'mia_li_3668',
      email: 'mia.li3818@example.com',
      phone_number: 5551232002,
      password: 'hunter2',
      apiKey: 'not-obviously-a-key',
      credentials: { user: 'u', pass: 'p' },
      headers: { Authorization: 'Bearer abc', 'X-Request-Id': 'req_123' },
      nested: [{ token: 'zzz', note: 'mail me at a.b@example.org' }, 'sk-abc123DEF456ghi789JKL012mno345'],
      payment_methods: { credit_card_4421486: { last_four: '7447' } },
      count: 3,
      ok: true,
      pwd: null,
    };
    expect(redactValue(input)).toEqual({
      user_id: 'mia_li_3668',
      email: '[REDACTED:email]',
      phone_number: '[REDACTED:phone]',
      password: '[REDACTED:password]',
      apiKey: '[REDACTED:api_key]',
      credentials: '[REDACTED:token]',
      headers: { Authorization: '[REDACTED:token]', 'X-Request-Id': 'req_123' },
      nested: [{ token: '[REDACTED:token]', note: 'mail me at [REDACTED:email]' }, '[REDACTED:api_key]'],
      payment_methods: { credit_card_4421486: { last_four: '7447' } },
      count: 3,
      ok: true,
      pwd: null,
    });
  });

  it('takes a PIN for a password, and a word that only holds the letters for none', () => {
    expect(redactValue({ pin: '4321', card_pin: 9876, pinCode: '0000', spin: 'left', pinned: true })).toEqual({
      pin: '[REDACTED:password]',
      card_pin: '[REDACTED:password]',
      pinCode: '[REDACTED:password]',
      spin: 'left',
      pinned: true,
    });
  });

  it('does not mutate its input and passes scalars through', () => {
    const input = { password: 'x' };
    redactValue(input);
    expect(input).toEqual({ password: 'x' });
    expect(redactValue(42)).toBe(42);
    expect(redactValue(null)).toBe(null);
    expect(redactValue('call 555-123-4567')).toBe('call [REDACTED:phone]');
  });

  it('copies only what it redacts: a clean value comes back as it is, clean parts are shared', () => {
    const clean = { domain: 'retail', tags: ['a', 'b'], origin: { repo: 'x/y' } };
    expect(redactValue(clean)).toBe(clean);
    const input = { origin: { repo: 'x/y' }, tags: ['a', 'mail a.b@example.org', 'c'], api_key: 'k-123' };
    const out = redactValue(input) as typeof input;
    expect(out).toEqual({
      origin: { repo: 'x/y' },
      tags: ['a', 'mail [REDACTED:email]', 'c'],
      api_key: '[REDACTED:api_key]',
    });
    expect(out).not.toBe(input);
    expect(out.origin).toBe(input.origin);
    expect(input.tags[1]).toBe('mail a.b@example.org');
    expect(input.api_key).toBe('k-123');
    // Key order is kept when a copy is made after the first keys.
    expect(Object.keys(redactValue({ a: 1, b: 'x', password: 'p', z: 2 }) as object)).toEqual([
      'a',
      'b',
      'password',
      'z',
    ]);
  });
});

describe('findSecrets', () => {
  it('reports each secret with its kind and offset, once', () => {
    const text = 'use token=ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R then AKIAIOSFODNN7EXAMPLE';
    expect(findSecrets(text)).toEqual([
      { kind: 'token', index: text.indexOf('token=') },
      { kind: 'aws_key', index: text.indexOf('AKIA') },
    ]);
  });

  it('ignores personal data unless asked', () => {
    const text = 'mail a.b@example.org or call 555-123-4567';
    expect(findSecrets(text)).toEqual([]);
    expect(findSecrets(text, { personal: true }).map((m) => m.kind)).toEqual(['email', 'phone']);
  });

  it('finds nothing in ordinary traces', () => {
    expect(findSecrets('get_user_details {"user_id": "mia_li_3668"} -> {"email": "x@example.com"}')).toEqual([]);
  });
});

describe('adversarial input', () => {
  it('returns on 1 MB strings built to make regexes backtrack', () => {
    const mb = (unit: string) => unit.repeat(Math.ceil((1 << 20) / unit.length));
    const inputs = [
      mb('1'),
      mb('1 '),
      mb('+1 '),
      mb('a@'),
      `x@${mb('a.')}`,
      mb('a.b_c%d+'),
      `sk-${mb('a')}`,
      mb('eyJabcde.'),
      mb('Bearer '),
      mb('-----BEGIN PRIVATE KEY-----'),
      `http://${mb('a:')}`,
      mb('password: "'),
      mb('authorization: '),
      mb('4111 '),
      mb('555-123-'),
      mb('ab12-_.@:/ '),
    ];
    // The prose rules: a credential word, then long runs of what may come between it and a value.
    inputs.push(
      `password${' '.repeat(1 << 20)}!`,
      mb('password is '),
      mb("password '"),
      `pin is${' '.repeat(1 << 20)}`,
    );
    inputs.push(mb('passcode was changed to '));
    // The prose phone, national id and IBAN rules: a label, then runs of what a number or an account is made of.
    inputs.push(mb('my number is 0'), mb('call me at 06 '), mb('passport number X'), mb('GB82 WEST '), mb('DE89'));
    for (const input of inputs) {
      expect(typeof redactCapture(input)).toBe('string');
      expect(typeof redactText(input)).toBe('string');
      expect(Array.isArray(findSecrets(input, { personal: true }))).toBe(true);
    }
  });
});

describe('redactText: the kinds added for issue #14', () => {
  it.each([
    ['GitLab token', 'use %s here', 'glpat-xR4nd0mT0k3nV4lu3zZ9', 'token'],
    ['Hugging Face token', 'HF=%s', 'hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789', 'token'],
    [
      'AWS secret key after its key id',
      'AKIAIOSFODNN7EXAMPLE %s',
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'aws_key',
    ],
    ['bare AWS secret key', 'creds: %s', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'high_entropy'],
    ['US SSN', 'ssn on file %s.', '123-45-6789', 'national_id'],
    ['national id under its key', '{"national_id": "%s"}', 'AB123456C', 'national_id'],
    ['generic high-entropy token', 'x-api: %s', 'Q2hhbmdlTWU9dHJ1ZSZ0b2tlbj1aeDgxa1EybVc3dk40cFI5', 'high_entropy'],
  ])('%s', (_name, context, secret, kind) => {
    expectRedacted(context, secret, kind);
  });

  it('redacts a PGP private key block, also when cut before its END line', () => {
    const block =
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0bVfkBCADPfJzY8dPq3kL0mN2oP4qR6sT8uV0w\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----';
    expect(redactText(`key:\n${block}\nafter`)).toBe('key:\n[REDACTED:private_key]\nafter');
    expect(redactText('-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0b')).toBe('[REDACTED:private_key]');
  });

  it('leaves ids, hex digests, invalid SSNs and snake_case names alone', () => {
    for (const text of [
      'commit 3f9a1c2b7d8e4f5a6b7c8d9e0f1a2b3c4d5e6f7a',
      'uuid 123e4567-e89b-12d3-a456-426614174000',
      'order #W2378156, user yusuf_rossi_9620, item 1008292230',
      'invalid numbers: 000-12-3456 or 666-12-3456 or 123-00-4567',
      'path /usr/local/lib/node_modules/some_package_name/index.js',
      'credit_card_4421486 gift_card_7219486 paypal_3820631',
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });

  it('stays fast on long hostile runs for the new rules', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let s = 'aws ';
    for (let i = 0; i < 400_000; i++) s += alphabet[(i * 7919) % 64];
    const started = Date.now();
    redactText(`${s} ${'1'.repeat(200_000)} ${'secret '.repeat(50_000)}`);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('redactText: credentials in shell lines, query strings and ids', () => {
  it.each([
    ['login password=Tr0ub4dor&3xyzzy', 'login password=[REDACTED:password]'],
    ['(password: Tr0ub4dor&3xyzzy)', '(password: [REDACTED:password])'],
    ['https://x.example/?password=abc123&user=bob', 'https://x.example/?password=[REDACTED:password]&user=bob'],
    ['Cookie: token=abc123XYZ; path=/', 'Cookie: token=[REDACTED:token]; path=/'],
    ['db pass=S3cr3tPassw0rd! thanks', 'db pass=[REDACTED:password] thanks'],
    ['pw: Summer2024!', 'pw: [REDACTED:password]'],
    ['PGPASSWORD=Sup3rS3cret#1 psql -h db', 'PGPASSWORD=[REDACTED:password] psql -h db'],
    ['export DB_PASS=hunter2x9', 'export DB_PASS=[REDACTED:password]'],
    ["MYSQL_PWD='s3cret-pw' mysql", "MYSQL_PWD='[REDACTED:password]' mysql"],
    ['mysql -u root -pS3cret shop', 'mysql -u root -p[REDACTED:password] shop'],
    ['curl -u alice:Sup3rS3cret https://api.example', 'curl -u alice:[REDACTED:password] https://api.example'],
    ['sshpass -p hunter22 ssh deploy@host', 'sshpass -p [REDACTED:password] ssh deploy@host'],
    ['whsec_A1b2C3d4E5f6G7h8I9j0', '[REDACTED:token]'],
    ['chat-alice@example.com-42', '[REDACTED:email]-42'],
    ['card-4111111111111111', 'card-[REDACTED:card]'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each(['Tests pass: 42', 'mysql -u root -p shop', 'EDITOR=vim git commit', 'order 1234-4111111111111111'])(
    'leaves %s as it is',
    (input) => {
      expect(redactText(input)).toBe(input);
    },
  );
});

describe('redactText: personal numbers in national formats, after the words that name them', () => {
  it.each([
    [
      'a French mobile',
      'my number is 06 12 34 56 78, call me after 5',
      'my number is [REDACTED:phone], call me after 5',
    ],
    ['a London number', 'call me at 020 7946 0958 or email', 'call me at [REDACTED:phone] or email'],
    ['a German number', 'Meine Telefonnummer ist 030 12345678.', 'Meine Telefonnummer ist [REDACTED:phone].'],
    ['a Spanish mobile', 'Mi teléfono es 612 34 56 78', 'Mi teléfono es [REDACTED:phone]'],
    ['bare digits after Tel', 'Tel 0612345678', 'Tel [REDACTED:phone]'],
    [
      'a passport number',
      'passport number is X1234567 and it expires soon',
      'passport number is [REDACTED:national_id] and it expires soon',
    ],
    [
      'an SSN without dashes',
      'my social security number is 123456789',
      'my social security number is [REDACTED:national_id]',
    ],
    ['a UK NINO as written', 'NI number QQ 12 34 56 C please', 'NI number [REDACTED:national_id] please'],
    ['a Spanish DNI', 'DNI: 12345678Z', 'DNI: [REDACTED:national_id]'],
    ['an IBAN in groups', 'IBAN: GB82 WEST 1234 5698 7654 32', 'IBAN: [REDACTED:bank_account]'],
    ['an IBAN without a label', 'pay to DE89370400440532013000 today', 'pay to [REDACTED:bank_account] today'],
  ])('%s', (_name, text, redacted) => {
    expect(redactText(text)).toBe(redacted);
    expect(findSecrets(text, { personal: true }).length).toBeGreaterThan(0);
  });

  it.each([
    ['no number after the label', 'the phone number field is empty'],
    ['a time', 'call me at 5 pm'],
    ['an item id and a price', 'item 6469567736 costs 199'],
    ['an order id and a zip', 'order #W1234567 and zip 94103'],
    ['a passport with no number', 'my passport expired in 2021'],
    ['an IBAN whose check digits fail', 'ref GB82 WEST 1234 5698 7654 33'],
    ['a word ending in tel', 'the hotel 12345678'],
  ])('leaves alone %s', (_name, text) => {
    expect(redactText(text)).toBe(text);
  });
});
