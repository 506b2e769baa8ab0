import { describe, expect, it } from 'vitest';
import { protectSession, resolvePrivacy } from '../src/capture/privacy.js';
import { loadEvalFile } from '../src/eval/dataset.js';
import { checkRedactedOrigins } from '../src/eval/redacted-sources.js';
import { TAU_DEV, TAU_DIR } from './support/tau.js';

/**
 * The real traces keep the values that capture redacts (emails, phone numbers): where a procedure says a redacted
 * value came from must be where the real value came from.
 */
function check(file: string) {
  const policy = resolvePrivacy({});
  const pairs = loadEvalFile(file, { label: 'meta.family' }).sessions.map(({ session }) => ({
    raw: session,
    stored: protectSession({ ...session, labels: null }, policy, 500),
  }));
  return checkRedactedOrigins(pairs);
}

describe('origins of redacted values, against the real values of the traces', () => {
  it('says a phone number or an email the user gave is theirs (tau: every phone and email looked up by)', () => {
    const c = check(TAU_DEV);
    expect(c.args).toBeGreaterThan(100);
    expect(c.user).toBe(c.args);
    expect(c.userHeld).toBe(c.user);
  });

  it('traces an address to the directory lookup that found it, and states no origin it cannot back (WorkBench)', () => {
    const c = check(`${TAU_DIR}workbench.jsonl`);
    // The addresses found by company_directory.find_email_address are traced to it.
    expect(c.result).toBeGreaterThanOrEqual(40);
    expect(c.resultHeld / c.result).toBeGreaterThanOrEqual(0.95);
    expect(c.userHeld / c.user).toBeGreaterThanOrEqual(0.99);
    // What stays unstated is mostly what the real value cannot decide either (it follows a cut search result).
    expect(c.noneDecided).toBeLessThanOrEqual(c.none / 4);
  });
});
