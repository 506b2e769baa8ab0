import { describe, expect, it } from 'vitest';
import * as errors from './index.js';

describe('typed errors', () => {
  const classes = Object.entries(errors).filter(([name]) => name.endsWith('Error') && name !== 'SkillsmithError') as [
    string,
    typeof errors.SkillsmithError,
  ][];

  it('every class has its own code, and isInstance recognises exactly its own instances', () => {
    const codes = classes.map(([, C]) => (C as unknown as { code: string }).code);
    expect(new Set(codes).size).toBe(codes.length);
    const timeout = new errors.EndpointTimeoutError('GET http://x/v1/models', 100);
    expect(timeout.code).toBe('ENDPOINT_TIMEOUT');
    expect(timeout.name).toBe('EndpointTimeoutError');
    expect(errors.EndpointTimeoutError.isInstance(timeout)).toBe(true);
    expect(errors.SkillsmithError.isInstance(timeout)).toBe(true);
    expect(errors.EndpointUnreachableError.isInstance(timeout)).toBe(false);
    expect(errors.SkillsmithError.isInstance(new Error('x'))).toBe(false);
    expect(errors.SkillsmithError.isInstance(null)).toBe(false);
    expect(errors.errorCode(timeout)).toBe('ENDPOINT_TIMEOUT');
  });

  it('recognises an instance made by another copy of the module (same brand and code, other class object)', () => {
    const foreign = Object.assign(new Error('x'), { code: 'LLM_UNAVAILABLE', [Symbol.for('skillsmith.error')]: true });
    expect(errors.LlmUnavailableError.isInstance(foreign)).toBe(true);
    expect(errors.MalformedDraftError.isInstance(foreign)).toBe(false);
  });
});
