import { describe, expect, it } from 'vitest';
import { CircuitOpenError } from '../errors/index.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { canonicalModelName, knownEmbeddingModel, modelListed } from './models.js';

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
    await expect(b.run(async () => 1)).rejects.toSatisfy((e) => CircuitOpenError.isInstance(e));
    now = 100;
    expect(b.state).toBe('half-open');
    await expect(fail()).rejects.toThrow('down'); // the trial fails: open again
    expect(b.state).toBe('open');
    now = 250;
    expect(await b.run(async () => 42)).toBe(42);
    expect(b.state).toBe('closed');
  });
});
