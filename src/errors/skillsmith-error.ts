/**
 * Base of Skillsmith's typed errors. Every error carries a stable `code` (for logs, JSON output and exit
 * handling) and every class has a static `isInstance()` that recognises its instances by brand and code,
 * so the check also works across two copies of the module (e.g. `dist/` loaded next to `src/`), where
 * `instanceof` would not.
 */
const BRAND = Symbol.for('skillsmith.error');

// biome-ignore lint/suspicious/noExplicitAny: any constructor of the family, whatever its parameters
type ErrorClass = abstract new (...args: any[]) => SkillsmithError;

export class SkillsmithError extends Error {
  /** The code of this class; every subclass declares its own. */
  static readonly code: string = 'SKILLSMITH_ERROR';
  readonly code: string;
  readonly [BRAND] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = (new.target as unknown as { code: string }).code;
  }

  /** True for an error of this class (by code), whichever copy of the module created it. */
  static isInstance<T extends ErrorClass>(this: T & { code: string }, value: unknown): value is InstanceType<T> {
    if (value === null || typeof value !== 'object' || (value as Record<symbol, unknown>)[BRAND] !== true) return false;
    // `this` is the class isInstance was called on (a subclass checks its own code): it must stay `this`.
    // biome-ignore lint/complexity/noThisInStatic: the receiver is the subclass, not SkillsmithError
    if ((this as unknown) === SkillsmithError) return true;
    // biome-ignore lint/complexity/noThisInStatic: the receiver is the subclass, not SkillsmithError
    return (value as { code?: unknown }).code === this.code;
  }
}

/** The `code` of any Skillsmith error, or undefined for other values. */
export function errorCode(value: unknown): string | undefined {
  return SkillsmithError.isInstance(value) ? value.code : undefined;
}
