// Redaction of secrets and personal data before evidence leaves the process (SPEC "Evidence", "Trust
// boundary"). Pure and fast: every rule is one precompiled regex applied in one pass. Each regex is anchored
// by a literal prefix or a look-behind that pins matches to the start of a run, and every repetition is
// bounded or unambiguous, so no input makes the engine backtrack catastrophically.

export type SecretKind =
  | 'private_key'
  | 'jwt'
  | 'password'
  | 'bearer'
  | 'token'
  | 'api_key'
  | 'aws_key'
  | 'secret'
  | 'high_entropy';
export type PersonalKind = 'email' | 'card' | 'phone' | 'national_id' | 'bank_account';
export type RedactionKind = SecretKind | PersonalKind;

export interface SecretMatch {
  kind: RedactionKind;
  /** Offset of the match in the input text. */
  index: number;
}

const PERSONAL: ReadonlySet<string> = new Set<PersonalKind>(['email', 'card', 'phone', 'national_id', 'bank_account']);

export function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/** A value that is nothing but a redaction marker: every redacted email reads the same, so it traces nothing. */
export function isMarker(value: string): boolean {
  return /^\[REDACTED:[a-z_]+\]$/.test(value);
}

/** A marker of personal data (`[REDACTED:email]`), which a lookup may have shown: not a credential's. */
export function isPersonalMarker(value: string): boolean {
  const m = /^\[REDACTED:([a-z_]+)\]$/.exec(value);
  return !!m && PERSONAL.has(m[1]!);
}

/** The redaction markers a text holds anywhere (`[REDACTED:phone]` inside a record), each as often as it occurs. */
export function markersIn(text: string): string[] {
  return text.includes('[REDACTED:') ? (text.match(/\[REDACTED:[a-z_]+\]/g) ?? []) : [];
}

/** What a rule does with one match: the replacement and its kind, or null to keep the text. */
type Render = (match: string, groups: (string | undefined)[]) => { kind: RedactionKind; text: string } | null;

interface Rule {
  /**
   * A cheap necessary condition for `re` to match: a literal it cannot match without, a length or a digit
   * count. Most strings in a trace (ids, names, dates) fail every one, so most of the rules' scans are
   * skipped. `digits` counts the original text's digits (no replacement adds one, so it bounds the text's).
   */
  need: (text: string, digits: number) => boolean;
  re: RegExp;
  render: Render;
}

/** A key-value rule needs its separator. */
const keyValue = (t: string) => t.includes(':') || t.includes('=');

function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/** The whole match becomes the marker, when `accept` (if any) agrees. */
function whole(kind: RedactionKind, accept?: (match: string) => boolean): Render {
  return (m) => (accept && !accept(m) ? null : { kind, text: marker(kind) });
}

const hasDigit = (s: string) => /\d/.test(s);
const digitsOf = (s: string) => s.replace(/\D/g, '');

/** Luhn checksum: separates card numbers from other long digit runs. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let x = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
}

/**
 * IBAN (ISO 13616): country, check digits, then the account, 15-34 letters and digits, bare or in groups of four;
 * the mod-97 check spares other codes of that shape.
 */
function validIban(m: string): boolean {
  const bare = m.replace(/ /g, '');
  if (bare.length < 15 || bare.length > 34) return false;
  let rest = 0;
  for (const ch of bare.slice(4) + bare.slice(0, 4)) {
    const c = ch.charCodeAt(0);
    const v = c <= 57 ? c - 48 : c - 55;
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  return rest === 1;
}

/**
 * What a person writes before their phone number in a sentence (`my number is`, `call me at`, `Tel.`), in the
 * languages of function-words.ts: the number after it is theirs, in whatever national format (`020 7946 0958`,
 * `06 12 34 56 78`, `030 12345678`), which the patterns without a label leave alone (ids are digit runs too).
 */
const PROSE_PHONE_LABEL =
  '(?:(?:mobile|cell|tele)?phone(?: number| no\\.?)?|mobile(?: number)?|cell(?: number)?|tel\\.?|fax|' +
  '(?:call|reach|text) me (?:at|on)|my (?:phone |mobile |cell )?number|' +
  'telefon(?:nummer)?|handy(?:nummer)?|meine nummer|t[eé]l[eé]phone|t[eé]l\\.|portable|mon num[eé]ro|' +
  'tel[eé]fono|m[oó]vil|celular|mi n[uú]mero|telefone|meu n[uú]mero)';
const PROSE_PHONE = new RegExp(
  `(?<![\\p{L}\\d])(${PROSE_PHONE_LABEL})((?:[ \\t]+(?:is|was|ist|est|es|é))?[ \\t]*[:#]?[ \\t]*)(\\(?\\+?\\d[\\d ()./-]{5,22}\\d)(?![\\d])`,
  'giu',
);

/**
 * What names a national id in a sentence (`passport number`, `social security number`, `NI number`, `tax id`):
 * the id after it, bare (`X1234567`, `123456789`) or as a UK NINO is written (`QQ 12 34 56 C`).
 */
const PROSE_NATIONAL_ID = new RegExp(
  '(?<![\\p{L}\\d])((?:social security|passport|national (?:id|identity|insurance)|id card|identity card|tax (?:id|identification))(?: number| no\\.?| #)?|ni (?:number|no\\.?)|ssn|nino|' +
    'personalausweis(?:nummer)?|reisepass(?:nummer)?|steuer-?id|num[eé]ro de (?:passeport|s[eé]curit[eé] sociale)|' +
    'pasaporte|dni|cpf)((?:[ \\t]+(?:is|was|ist|est|es|é))?[ \\t]*[:#]?[ \\t]*)' +
    '([A-Z]{2} \\d{2} \\d{2} \\d{2} [A-D]|[A-Z0-9][A-Z0-9./-]{4,18}[A-Z0-9])(?![\\p{L}\\d])',
  'giu',
);

/** Key names whose value is a secret (`kindOfKey` gives the marker kind). Longest alternatives first. */
const SECRET_KEY_SRC =
  'client[_-]?secret|secret[_-]?key|private[_-]?key|access[_-]?key|api[_-]?key|apikey|' +
  'password|passwd|passphrase|passcode|pwd|pass|pw|secret|token';
const PHONE_KEY_SRC = '(?:phone|mobile|fax|tel(?:ephone)?)(?:[_-]?(?:number|no|num))?';
/** An object key holding a phone number: `phone`, `phoneNumber`, `mobile_phone`, `fax`, not `hotel`. */
const PHONE_KEY = /(?:phone|(?:^|[^a-z])(?:mobile|fax|tel))(?:[_-]?(?:number|no|num))?$/i;

function kindOfKey(key: string): RedactionKind | null {
  let kind = keyKinds.get(key);
  if (kind === undefined) {
    // Keys repeat across every record of a trace: each distinct one is classified once (a bounded memo).
    if (keyKinds.size >= KEY_MEMO_LIMIT) keyKinds.clear();
    keyKinds.set(key, (kind = classifyKey(key)));
  }
  return kind;
}

const KEY_MEMO_LIMIT = 10_000;
const keyKinds = new Map<string, RedactionKind | null>();

function classifyKey(key: string): RedactionKind | null {
  const k = key.toLowerCase();
  // A PIN is a password too (`pin`, `card_pin`, `pinCode`); `spin` or `pinned` is not one.
  if (
    /(?:password|passwd|passphrase|passcode|pwd|pin[_-]?code|passwort|kennwort|contrase(?:ñ|n)a|senha|mot[_-]?de[_-]?passe)$|(?:^|[^a-z])(?:pass|pw|pin)$/.test(
      k,
    )
  )
    return 'password';
  if (/private[_-]?key$/.test(k)) return 'private_key';
  if (/(?:api[_-]?key|apikey|access[_-]?key)$/.test(k)) return 'api_key';
  if (/(?:secret|secret[_-]?key)$/.test(k)) return 'secret';
  if (/(?:token|authorization|cookie|credentials?)$/.test(k)) return 'token';
  if (NATIONAL_ID_KEY.test(k)) return 'national_id';
  return null;
}

/** Keys whose value is a national id number (US SSN, UK NINO, ...). */
const NATIONAL_ID_KEY =
  /(?:^|[^a-z])(?:ssn|social[_-]?security(?:[_-]?(?:number|no))?|national[_-]?id(?:[_-]?(?:number|no))?|nino|tax[_-]?id|sin)$|(?:^|[^a-z])passport[_-]?(?:number|no)$/;

/** US SSN: area not 000, 666 or 9xx; group not 00; serial not 0000. */
function validSsn(m: string): boolean {
  const [a, g, s] = m.split(/[- ]/);
  return a !== '000' && a !== '666' && a![0] !== '9' && g !== '00' && s !== '0000';
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * A generic credential: a long run of mixed case letters and digits (base64 / base62 alphabets) with high
 * entropy. Hex digests, UUIDs, identifiers with underscores between words and anything all one case are
 * left alone: on real traces those are ids, not secrets.
 */
function looksLikeSecret(m: string): boolean {
  if (m.length < 32 || m.length > 512) return false;
  if (/^[0-9a-f]+$/i.test(m)) return false;
  const upper = /[A-Z]/.test(m);
  const lower = /[a-z]/.test(m);
  const digits = (m.match(/\d/g) ?? []).length;
  if (!upper || !lower || digits < 1 || (digits < 2 && !/[+/]/.test(m))) return false;
  // Words joined by separators (snake_case, kebab-case, paths) are names.
  if (/[A-Za-z]{3,}[_./-][A-Za-z]{3,}[_./-][A-Za-z]{3,}/.test(m)) return false;
  return entropy(m) >= 4.2;
}

/**
 * The word for a password in German, French, Spanish, Portuguese, Russian, Chinese, Japanese, Korean, Arabic and
 * Hindi (the English ones are SECRET_KEY_SRC's), and a cheap test for any of them.
 */
const LOCAL_PASSWORD_SRC =
  'passwort|kennwort|mot de passe|contraseña|contrasena|clave|senha|пароль|密码|密碼|口令|パスワード|비밀번호|암호|كلمة المرور|كلمة السر|पासवर्ड';
const LOCAL_PASSWORD_HINT =
  /passwort|kennwort|mot de passe|contrase|clave|senha|пароль|密码|密碼|口令|パスワード|비밀번호|암호|كلمة|पासवर्ड/i;

/** Values that are placeholders rather than secrets. */
const NOT_A_VALUE = /^(?:null|none|undefined|true|false|\*+|\[REDACTED:[a-z_]+\])$/i;

// Order matters: structured secrets (PEM, JWT, URL credentials, bearer) go first so the generic key=value
// rule finds them already replaced; personal data goes last.
const RULES: Rule[] = [
  {
    // OpenPGP armour; a trace cut mid-key, again, counts from BEGIN on.
    need: (t) => t.includes('-----BEGIN PGP'),
    re: /-----BEGIN PGP PRIVATE KEY BLOCK-----(?:[\s\S]*?-----END PGP PRIVATE KEY BLOCK-----|[\s\S]*$)/g,
    render: whole('private_key'),
  },
  {
    // A trace cut mid-key has no END line: then everything from BEGIN on is key material.
    need: (t) => t.includes('-----BEGIN '),
    re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|[\s\S]*$)/g,
    render: whole('private_key'),
  },
  {
    need: (t) => t.includes('eyJ'),
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
    render: whole('jwt'),
  },
  {
    // scheme://user:pass@host keeps the user and host.
    need: (t) => t.includes('://'),
    re: /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)([^\s:/?#@"'\\]{0,256}):([^\s/?#@"'\\]{1,256})@/g,
    render: (_m, [scheme, user, pass]) =>
      pass!.startsWith('[REDACTED:') ? null : { kind: 'password', text: `${scheme}${user}:${marker('password')}@` },
  },
  {
    need: (t) => /bearer/i.test(t),
    re: /(?<![A-Za-z0-9])(Bearer)([ \t]+)([A-Za-z0-9\-._~+/]{8,}=*)/gi,
    // Prose has "bearer" too: a token has a digit or is longer than any word.
    render: (_m, [word, space, token]) =>
      hasDigit(token!) || token!.length >= 24 ? { kind: 'bearer', text: `${word}${space}${marker('bearer')}` } : null,
  },
  {
    // Authorization: <scheme> <credentials>, whatever they look like (a Bearer token the rule above
    // already replaced no longer matches: the marker is not token text).
    need: (t) => /authorization/i.test(t),
    re: /(?<![A-Za-z0-9])(authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?)((?:Basic|Bearer|Token|Digest)[ \t]+)?([A-Za-z0-9\-._~+/]{8,}=*)/gi,
    render: (_m, [head, scheme, _cred]) => {
      const kind = scheme && /^bearer/i.test(scheme) ? 'bearer' : 'token';
      return { kind, text: `${head}${scheme ?? ''}${marker(kind)}` };
    },
  },
  {
    need: (t) => t.includes('sk-'),
    re: /(?<![A-Za-z0-9_-])sk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    render: whole('api_key', hasDigit),
  },
  {
    need: (t) => t.includes('k_live_') || t.includes('k_test_'),
    re: /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
    render: whole('api_key'),
  },
  { need: (t) => t.includes('AIza'), re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g, render: whole('api_key') },
  {
    need: (t) => t.includes('gh') || t.includes('github_pat_'),
    re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    render: whole('token'),
  },
  {
    need: (t) => t.includes('xox') || t.includes('xapp-'),
    re: /(?<![A-Za-z0-9-])(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}/g,
    render: whole('token'),
  },
  {
    need: (t) => t.includes('AKIA') || t.includes('ASIA'),
    re: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    render: whole('aws_key'),
  },
  {
    // An environment variable that names a credential, as a shell line or a .env file sets it: PGPASSWORD=...,
    // MYSQL_PWD=..., DB_PASS=..., GITHUB_TOKEN=... (the key rule below needs the key to start a word).
    need: (t) => t.includes('='),
    re: /(?<![A-Za-z0-9_])([A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|SECRET|TOKEN|API_?KEY|ACCESS_KEY|PRIVATE_KEY))(=)(["']?)([^\s"'`;&|]{1,512})/g,
    render: (_m, [key, eq, quote, value]) =>
      NOT_A_VALUE.test(value!) || value!.startsWith('$')
        ? null
        : { kind: kindOfKey(key!) ?? 'secret', text: `${key}${eq}${quote}${marker(kindOfKey(key!) ?? 'secret')}` },
  },
  {
    // A password on a command line: `mysql -pSecret` (attached to -p), `curl -u user:secret`, `sshpass -p secret`.
    // The command's name is looked for behind a flag found, not at every position of the text: a look-behind of
    // up to 200 characters tried everywhere cost a pass over a cluster's results a second per thousand sessions.
    need: (t) =>
      (t.includes('-p') || t.includes('-u') || t.includes('--user')) &&
      /\b(?:mysql|mysqldump|mysqladmin|mariadb|curl|wget|sshpass)\b/.test(t),
    re: /(\s-p)(?<=\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?\s-p)([^\s'"-][^\s'"]{0,127})|(\s(?:-u|--user)\s+["']?[^\s:'"]{1,128}:)(?<=\b(?:curl|wget)\b[^\n|;&]{0,200}?\s(?:-u|--user)\s+["']?[^\s:'"]{1,128}:)([^\s'"@]{1,128})|(\s-p\s*)(?<=\bsshpass\b[^\n|;&]{0,40}?\s-p\s*)([^\s'"]{1,128})/g,
    render: (_m, [mysqlFlag, , curlHead, , sshFlag]) => ({
      kind: 'password',
      text: `${mysqlFlag ?? curlHead ?? sshFlag}${marker('password')}`,
    }),
  },
  {
    // Stripe webhook signing secrets, npm and PyPI tokens, Shopify access tokens: their prefix says what they are.
    need: (t) => t.includes('whsec_') || t.includes('npm_') || t.includes('pypi-') || t.includes('shp'),
    re: /(?<![A-Za-z0-9_-])(?:whsec_[A-Za-z0-9+/=]{16,}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})(?![A-Za-z0-9])/g,
    render: whole('token'),
  },
  { need: (t) => t.includes('glpat-'), re: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g, render: whole('token') },
  {
    need: (t) => t.includes('hf_'),
    re: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g,
    render: whole('token'),
  },
  {
    // An AWS secret access key: 40 base64 characters, recognised by its context (a key id, or the word aws
    // or secret within the 120 characters before it).
    // The context look-behind comes last, so it runs only where a 40-character run was found.
    need: (t) => t.length >= 40,
    re: /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])(?<=(?:AKIA|ASIA|aws|AWS|Aws|secret|SECRET|Secret|\[REDACTED:aws_key\])[\s\S]{0,160})/g,
    render: whole('aws_key', (m) => /[A-Z]/.test(m) && /[a-z]/.test(m) && /\d/.test(m) && !/^[0-9a-f]+$/i.test(m)),
  },
  {
    // A password under its name in another language, as a user writes it in a request or a tool prints it:
    // "Passwort: Sommer2024!", "mot de passe : Soleil2024!", "contraseña es Verano2024!", "密码：Mima2024!",
    // "パスワードは「さくら2024」". The value is taken when it holds a digit or a symbol, or follows `=`: a word after a
    // colon may be prose ("Passwort: vergessen", forgotten).
    need: (t) => LOCAL_PASSWORD_HINT.test(t),
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(${LOCAL_PASSWORD_SRC})((?:\\s*[:：=]\\s*)|\\s+(?:ist|lautet|est|es|é|era|war)\\s+|\\s*(?:是|は|는|은)\\s*)(["'«「『“]?)([^\\s"'»」』”,，。、;；]{1,128})`,
      'giu',
    ),
    render: (_m, [key, sep, open, value]) => {
      const core = value!.replace(/[.!?)]+$/u, '');
      if (NOT_A_VALUE.test(core) || core.startsWith('[REDACTED:')) return null;
      if (!/[^\p{L}\p{M}]/u.test(core) && !sep!.includes('=')) return null;
      return { kind: 'password', text: `${key}${sep}${open}${marker('password')}${value!.slice(core.length)}` };
    },
  },
  {
    need: keyValue,
    // password=..., "api_key": "...", token: ... (also inside JSON that was escaped into a string).
    re: new RegExp(
      `(?<![A-Za-z0-9])(${SECRET_KEY_SRC})(\\\\?["']?[ \\t]*[:=][ \\t]*)` +
        // A bare value ends at a separator; `&` or `;` inside one (`Tr0ub4dor&3xyzzy`) is kept unless what follows is
        // the next key of a query string or cookie (`&user=bob`, `; path=/`).
        `(?:(\\\\?")([^"\\\\\\r\\n]{1,512})|(\\\\?')([^'\\\\\\r\\n]{1,512})|((?:[^\\s"'\\\\,;&<>{}()\\[\\]]|[&;](?=[^\\s&;])(?![A-Za-z_][\\w.-]{0,40}=)){1,512}))` +
        // The word after a bare value, if one follows: "Password: looks up the account" is a sentence.
        `(?=([ \\t][a-z]{2,})?)`,
      'gi',
    ),
    render: (_m, [key, sep, dq, dqv, sq, sqv, bare, next]) => {
      const value = dqv ?? sqv ?? bare!;
      if (NOT_A_VALUE.test(value.trim())) return null;
      // Prose, not a credential: a title that ends in "Password" or "Token", a colon, then lowercase words (a skill's
      // own description, "Reset Password: looks up the account ..."). A value after `=`, in quotes, with a digit,
      // a capital or a symbol, or alone at the end, is still taken for one.
      if (bare && next && !/[="']/.test(sep!) && /^[a-z]{2,}$/.test(bare) && /^[A-Z][a-z]+$/.test(key!)) return null;
      // `pass` and `pw` are words too ("pass: 42" of a test run, a boarding pass): a value under them is taken for a
      // password when it mixes letters with digits or symbols.
      if (/^(?:pass|pw)$/i.test(key!) && !(/[A-Za-z]/.test(value) && /[^A-Za-z]/.test(value))) return null;
      const kind = kindOfKey(key!) ?? 'secret';
      return { kind, text: `${key}${sep}${dq ?? sq ?? ''}${marker(kind)}` };
    },
  },
  {
    need: (t) => t.length >= 32,
    re: /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{32,512}(?![A-Za-z0-9+/_=-])/g,
    render: whole('high_entropy', looksLikeSecret),
  },
  {
    need: (t) => t.includes('@'),
    // The name starts with a letter, digit or `_`, after anything but a name's own characters or a backslash, or
    // just after a text escape (`\n`): in JSON text `\n@bp.get('/')` (a Python decorator after a line break) is
    // no address, and `\njohn@example.com` is one, after its escape.
    re: /(?:(?<=\\[nrtbf])|(?<![A-Za-z0-9._%+\\-]))[A-Za-z0-9_][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![A-Za-z0-9])(?!-[A-Za-z0-9-]*\.[A-Za-z])/g,
    render: whole('email'),
  },
  {
    // 13-19 digits, bare or in groups; Visa/Mastercard/Amex/Discover/JCB/UnionPay start with 2-6 (which
    // also spares millisecond timestamps), and the Luhn check spares the rest of the numeric ids.
    need: (_t, digits) => digits >= 13,
    re: /(?<![\w.+])(?<!\d-)(?:[2-6]\d{12,18}|[2-6]\d{3}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|3\d{3}([ -])\d{6}\2\d{4,5})(?![\w]|[.-]\d)/g,
    render: whole('card', (m) => {
      const d = digitsOf(m);
      return d.length >= 13 && d.length <= 19 && luhn(d);
    }),
  },
  {
    // US social security number, written with dashes or spaces.
    need: (_t, digits) => digits >= 9,
    re: /(?<![\w.+-])\d{3}([- ])\d{2}\1\d{4}(?![\w]|[.-]\d)/g,
    render: whole('national_id', validSsn),
  },
  {
    // A national id under a key that names one (ssn, national_id, nino, tax_id), in any shape.
    need: keyValue,
    re: /(?<![A-Za-z0-9])(ssn|social[_-]?security[_-]?(?:number|no)?|national[_-]?id(?:[_-]?(?:number|no))?|nino|tax[_-]?id)(\\?["']?[ \t]*[:=][ \t]*\\?["']?)([A-Za-z0-9][A-Za-z0-9-]{4,18}[A-Za-z0-9])(?![A-Za-z0-9-])/gi,
    render: (_m, [key, sep, value]) =>
      /\d{4}/.test(value!) ? { kind: 'national_id', text: `${key}${sep}${marker('national_id')}` } : null,
  },
  {
    // A national id after the words that name it in a sentence, with at least five digits (not "passport expired").
    need: (_t, digits) => digits >= 5,
    re: PROSE_NATIONAL_ID,
    render: (_m, [label, sep, value]) =>
      digitsOf(value!).length >= 5 ? { kind: 'national_id', text: `${label}${sep}${marker('national_id')}` } : null,
  },
  {
    // IBAN, validated by its mod-97 check digits.
    need: (t, digits) => digits >= 10 && /[A-Z]{2}\d{2}/.test(t),
    re: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
    render: whole('bank_account', validIban),
  },
  {
    // International: +<country> then digit groups, 8-15 digits in all (E.164).
    need: (t) => t.includes('+'),
    re: /(?<![\w+])\+\d{1,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]\d{1,5}){1,5}(?![\w]|[.-]\d)|(?<![\w+])\+\d{8,15}(?!\w)/g,
    render: whole('phone', (m) => {
      const n = digitsOf(m).length;
      return n >= 8 && n <= 15;
    }),
  },
  {
    // US: (555) 123-4567, 555-123-4567, 555.123.4567, 1-800-555-0199. A separator is required, so bare
    // digit ids, dates (4-2-2) and times never match.
    need: (_t, digits) => digits >= 10,
    re: /(?<![\w.+-])(?:1[ .-])?(?:\(\d{3}\)[ .-]?\d{3}[ .-]|\d{3}([ .-])\d{3}\1)\d{4}(?![\w]|[.-]\d)/g,
    render: whole('phone'),
  },
  {
    // A national number as written at home, with its trunk 0 and no label: 020 7946 0958, 030 12345678,
    // 06 12 34 56 78, 0412 345 678, 03-1234-5678, (02) 9876 5432, 07700 900123. The first group is 0 and one to
    // four digits (not 00, an international prefix), one kind of separator throughout, 9 to 11 digits in all: a
    // version (0.12.3), an ISBN (0-306-40615-2), a date or a time has too few digits or a lone 0 first.
    need: (_t, digits) => digits >= 9,
    re: /(?<![\w.+-])(?:\(0[1-9]\d{0,3}\)([ .-]?)|0[1-9]\d{0,3}([ .-]))\d{2,5}(?:(?:\1|\2)\d{2,5}){0,4}(?![\w]|[.-]\d)/g,
    render: whole('phone', (m) => {
      const n = digitsOf(m).length;
      return n >= 9 && n <= 11;
    }),
  },
  {
    // A phone number after the words that introduce one in a sentence, in any national format, 7-15 digits.
    need: (_t, digits) => digits >= 7,
    re: PROSE_PHONE,
    render: (_m, [label, sep, value]) => {
      const n = digitsOf(value!).length;
      return n >= 7 && n <= 15 ? { kind: 'phone', text: `${label}${sep}${marker('phone')}` } : null;
    },
  },
  {
    need: keyValue,
    // A phone number under a phone-named key may be bare digits.
    re: new RegExp(
      `(?<![A-Za-z0-9])(${PHONE_KEY_SRC})(\\\\?["']?[ \\t]*[:=][ \\t]*\\\\?["']?)(\\+?\\d[\\d ().-]{5,22}\\d)(?![\\d])`,
      'gi',
    ),
    render: (_m, [key, sep, value]) => {
      const n = digitsOf(value!).length;
      return n >= 7 && n <= 15 ? { kind: 'phone', text: `${key}${sep}${marker('phone')}` } : null;
    },
  },
];

/** Applies `render` to every match of `re`; a null render keeps the match as it was. */
function applyRule(text: string, rule: Rule): string {
  rule.re.lastIndex = 0;
  return text.replace(rule.re, (match: string, ...rest: unknown[]) => {
    const groups = rest.slice(
      0,
      rest.findIndex((x) => typeof x === 'number'),
    ) as (string | undefined)[];
    return rule.render(match, groups)?.text ?? match;
  });
}

/** Replaces secrets and personal data with typed markers such as `[REDACTED:api_key]`. */
export function redactText(text: string): string {
  let out = text;
  const digits = countDigits(text);
  for (const rule of RULES) if (rule.need(out, digits)) out = applyRule(out, rule);
  return out;
}

/**
 * Where the text holds secrets (credentials), for the deny rules. Personal data (email, phone, card) is
 * redacted but does not make a span a secret unless `personal` is set: tau-style traces look customers up by
 * email and phone all the time.
 */
export function findSecrets(text: string, opts: { personal?: boolean } = {}): SecretMatch[] {
  const found: { kind: RedactionKind; index: number; end: number }[] = [];
  const digits = countDigits(text);
  for (const rule of RULES) {
    if (!rule.need(text, digits)) continue;
    rule.re.lastIndex = 0;
    for (const m of text.matchAll(rule.re)) {
      const r = rule.render(m[0], m.slice(1));
      if (!r || (!opts.personal && PERSONAL.has(r.kind))) continue;
      found.push({ kind: r.kind, index: m.index, end: m.index + m[0].length });
    }
  }
  found.sort((a, b) => a.index - b.index || b.end - a.end);
  // One report per region: a key inside a key=value pair, or a JWT after "Bearer", is the same secret.
  const out: SecretMatch[] = [];
  let reach = -1;
  for (const f of found) {
    if (f.end <= reach) continue;
    out.push({ kind: f.kind, index: f.index });
    reach = Math.max(reach, f.end);
  }
  return out;
}

/**
 * Deep-redacts a JSON value: every string (object keys too) goes through `redactText`, and the whole value
 * under a key that names a secret (`password`, `api_key`, `token`, `secret`, `authorization`, ...) or a
 * phone number is replaced by its marker. `text` redacts the string values (keys always go through
 * `redactText`): a caller may add rules, or remember answers, as long as it redacts at least as much.
 * What needs no redaction is returned as it is, not copied (the value itself when nothing in it changed):
 * the result is read, never mutated.
 */
export function redactValue(v: unknown, text: (s: string) => string = redactText): unknown {
  if (typeof v === 'string') return text(v);
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x = redactValue(v[i], text);
      if (!out && x !== v[i]) out = v.slice(0, i);
      out?.push(x);
    }
    return out ?? v;
  }
  if (v === null || typeof v !== 'object' || !isPlainObject(v)) return v;
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  let out: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = record[key];
    const k = redactKey(key);
    const x = redactEntry(key, value, text);
    if (!out && (k !== key || x !== value)) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]!] = record[keys[j]!];
    }
    if (out) out[k] = x;
  }
  return out ?? v;
}

const KEY_TEXT_CHARS = 256;
const redactedKeys = new Map<string, string>();

/** `redactText` for an object key; keys repeat in every record, so short ones are remembered (bounded). */
function redactKey(key: string): string {
  let out = redactedKeys.get(key);
  if (out === undefined) {
    out = redactText(key);
    if (key.length <= KEY_TEXT_CHARS) {
      if (redactedKeys.size >= KEY_MEMO_LIMIT) redactedKeys.clear();
      redactedKeys.set(key, out);
    }
  }
  return out;
}

function redactEntry(key: string, value: unknown, text: (s: string) => string): unknown {
  const empty = value === null || value === undefined || value === '' || typeof value === 'boolean';
  const kind = kindOfKey(key);
  if (kind && !empty) return marker(kind);
  if (PHONE_KEY.test(key)) {
    const n = typeof value === 'string' || typeof value === 'number' ? digitsOf(String(value)).length : 0;
    if (n >= 7 && n <= 15) return marker('phone');
  }
  return redactValue(value, text);
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Credentials written as prose ("my password is hunter2", "password Tr0ub4dor&3", "the passphrase is \"open sesame
 * 42\"", "my password was changed to Xy9#kk2"), which the key=value rules of `redactText` do not see. An unquoted
 * value made only of letters ("password reset") is left alone; a quoted one after "is", "was", "to" or a colon is
 * the credential whatever it holds.
 */
const PROSE_PASSWORD =
  /\b(pass(?:word|wd|phrase|code)|pwd)((?:\s+(?:(?:is |was |been |got )?(?:changed|set|reset|updated) to|is|was|now))?(?:\s*[:=]\s*|\s+))(?!\[(?:REDACTED|HASH):)(?:(["'“‘])([^"'”’\n]{1,128})(["'”’])|([^\s"',;]{4,128}))/gi;

/** A PIN given in words: "my pin is 4921", "PIN: 4921", "pin code 0007" (four to eight digits; "pin 2024" alone is no PIN). */
const PROSE_PIN =
  /\b(pin[ _-]?(?:code|number)|pin(?=\s+(?:is|was)\b|\s*[:=]))(\s+(?:is|was)(?:\s*:)?\s*|\s*[:=]\s*|\s+)(\d{4,8})(?![\d.,]*\d)/gi;

/**
 * A key or token named in words and given after them: "api key 8f3a9c2e...", "the secret is 5f1d...". Hex digests
 * are ids to `redactText`; after these words a long run of letters and digits is the credential they name.
 */
const PROSE_SECRET =
  /\b(api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|(?:access |auth |api )?token)(\s+(?:is|was)\s+|\s+)(?!\[(?:REDACTED|HASH):)([A-Za-z0-9_+/=-]{16,512})(?![A-Za-z0-9_+/=-])/gi;

export function redactProse(text: string): string {
  return text
    .replace(
      PROSE_PASSWORD,
      (m, key: string, sep: string, open?: string, quoted?: string, close?: string, value?: string) => {
        if (quoted !== undefined) return `${key}${sep}${open}[REDACTED:password]${close}`;
        // A sentence's closing `.`, `?` or `)` is kept; a `!` is not: passwords end in one as often as sentences do.
        const core = value!.replace(/[.?)]+$/, '');
        return /[^A-Za-z]/.test(core) ? `${key}${sep}[REDACTED:password]${value!.slice(core.length)}` : m;
      },
    )
    .replace(PROSE_PIN, (_m, key: string, sep: string) => `${key}${sep}[REDACTED:password]`)
    .replace(PROSE_SECRET, (m, key: string, sep: string, value: string) =>
      /\d/.test(value) && /[A-Za-z]/.test(value)
        ? `${key}${sep}[REDACTED:${/token/i.test(key) ? 'token' : /secret/i.test(key) ? 'secret' : 'api_key'}]`
        : m,
    );
}

/** SPEC redaction plus prose credentials: what `redact` stores. */
export function redactCapture(text: string): string {
  return redactProse(redactText(text));
}
