/**
 * What names a person's details, in two strictness levels. Pure.
 *
 * - An argument a skill might quote (a fixed value, a choice) is refused broadly: any name that may hold a
 *   person's or an account's data, a substring being enough (`customer_email`, `account_id`, `api_key`). A
 *   wrong refusal only leaves a value unquoted.
 * - A field a condition might name (a branch, a step's `when`) is refused by its parts: a name, an email, a
 *   phone, a postal address (all of it), a birth date. Broader would cost real rules: `account_status`,
 *   `customer.membership` and a product's `name` are what branches read.
 */

/** Argument names that hold a person's or an account's data, whatever their value looks like. */
const PERSONAL_ARG =
  /^name$|(first|last|full|middle|given|family|sur|user)_?name$|mail|phone|address|zip|postal|user|customer|account|passw|token|secret|key|card|(^|_)ids?$/i;

/** Does an argument's name say it may hold a person's or an account's data? */
export function holdsPersonalData(arg: string): boolean {
  return PERSONAL_ARG.test(arg);
}

/**
 * One segment of a field that holds a person's details: a name, an email, a phone number, a postal address (all
 * of it: `address.city` too), a birth date. Such a field never carries a condition: its values are personal data,
 * which a skill must not quote, and no rule (a few sessions of one customer share a town or a last name by chance).
 */
const PERSONAL_SEGMENT =
  /^(?:(?:first|last|middle|full|given|family|sur|user)_?name|e_?mail(?:_?address(?:es)?)?|e_?mails|(?:phone|mobile|fax|tel(?:ephone)?)(?:_?(?:number|no|num)s?)?|(?:[a-z]+_)?address(?:es)?(?:_?(?:line_?)?\d)?|street|zip(?:_?code)?|post(?:al)?_?code|dob|date_?of_?birth|birth_?date|birthday)$/i;

/** Does a field's path (a JSON path, or a printed line's key) name a person's details in any of its parts? */
export function isPersonalField(path: string): boolean {
  return path.split(/[.[\]]+/).some((part) => PERSONAL_SEGMENT.test(part.trim().replace(/[\s-]+/g, '_')));
}

/** What a masked personal value reads as. */
export const PERSONAL_MARKER = '[REDACTED:personal]';

/**
 * A value with every field that names a person's details (`isPersonalField`: a name, an email, a phone, a postal
 * address, a birth date) masked, at any depth; a string holding a JSON object or list is read and masked too.
 * For text bound for a model: the procedure needs the fields, never whose they are.
 */
export function maskPersonalFields(value: unknown): unknown {
  if (typeof value === 'string') {
    const t = value.trim();
    if (!(t.startsWith('{') || t.startsWith('['))) return value;
    try {
      const parsed = JSON.parse(t) as unknown;
      const masked = maskPersonalFields(parsed);
      return masked === parsed ? value : JSON.stringify(masked);
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) {
    const out = value.map(maskPersonalFields);
    return out.some((x, i) => x !== value[i]) ? out : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    // A personal field's whole value goes: `address: {city, country}` is all of the address.
    const masked = isPersonalField(k) ? maskLeaves(v) : maskPersonalFields(v);
    if (masked !== v) changed = true;
    out[k] = masked;
  }
  return changed ? out : value;
}

/** Every string and number inside a value masked (the value of a personal field). */
function maskLeaves(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'number') return PERSONAL_MARKER;
  if (Array.isArray(value)) return value.map(maskLeaves);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskLeaves(v)]));
}
