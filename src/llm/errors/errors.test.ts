import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../circuit-breaker.js';
import { canonicalModelName, knownEmbeddingModel, modelListed } from '../models.js';
import * as errors from './index.js';

describe('typed errors', () => {
  const classes = Object.entries(errors).filter(([name]) => name.endsWith('Error') && name !== 'SkillsmithError') as [string, typeof errors.SkillsmithError][];

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

describe('model names', () => {
  it('canonicalises tags, paths and .gguf', () => {
    expect(canonicalModelName('nomic-embed-text:latest')).toBe('nomic-embed-text');
    expect(canonicalModelName('/models/nomic-embed-text-v1.5.Q8_0.gguf')).toBe('nomic-embed-text-v1.5.q8_0');
    expect(knownEmbeddingModel('/models/nomic-embed-text-v1.5.Q8_0.gguf')?.dimensions).toBe(768);
    expect(knownEmbeddingModel('Xenova/all-MiniLM-L6-v2')?.dimensions).toBe(384);
    expect(knownEmbeddingModel('my-own-model')).toBeUndefined();
    expect(modelListed('qwen2.5', ['qwen2.5:latest'])).toBe(true);
    expect(modelListed('qwen2.5:7b', ['qwen2.5:latest'])).toBe(false);
  });
});

describe('CircuitBreaker', () => {
  it('opens after the threshold, refuses until the cool-off, then allows one trial', async () => {
    let now = 0;
    const b = new CircuitBreaker('x', { failureThreshold: 2, coolOffMs: 100, now: () => now });
    const fail = () => b.run(async () => Promise.reject(new Error('down')));
    await expect(fail()).rejects.toThrow('down');
    expect(b.state).toBe('closed');
    await expect(fail()).rejects.toThrow('down');
    expect(b.state).toBe('open');
    await expect(b.run(async () => 1)).rejects.toSatisfy((e) => errors.CircuitOpenError.isInstance(e));
    now = 100;
    expect(b.state).toBe('half-open');
    await expect(fail()).rejects.toThrow('down'); // the trial fails: open again
    expect(b.state).toBe('open');
    now = 250;
    expect(await b.run(async () => 42)).toBe(42);
    expect(b.state).toBe('closed');
  });
});
