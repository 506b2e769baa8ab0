import { describe, expect, it } from 'vitest';
import { loadConfig, type SkillsmithConfig } from './config.js';
import { recallConfig, type RecallConfig } from './recall-config.js';

const noEnv = {} as NodeJS.ProcessEnv;

/** What recall reads of a full configuration: the fields of RecallConfig. */
function recallPart(c: SkillsmithConfig): RecallConfig {
  return {
    disabled: c.disabled,
    namespace: c.namespace,
    logLevel: c.logLevel,
    thresholds: c.thresholds,
    recall: c.recall,
    lifecycle: { retireEta: c.lifecycle.retireEta },
    embedder: { provider: c.embedder.provider },
  };
}

/** loadConfig's answer, or null when it rejects the input. */
function full(input: unknown, env = noEnv): RecallConfig | null {
  try {
    return recallPart(loadConfig(input, env));
  } catch {
    return null;
  }
}

/** recallConfig's answer with the lifecycle settings it accepts but does not keep left out. */
function lean(input: unknown, env = noEnv): RecallConfig | null {
  const c = recallConfig(input, env);
  return c && { ...c, lifecycle: { retireEta: c.lifecycle.retireEta } };
}

describe('recallConfig (the settings of a recall, checked without the schema)', () => {
  it('has the schema defaults', () => {
    expect(lean({})).toEqual(full({}));
  });

  it('accepts only what loadConfig accepts, with the same values; anything else is left to loadConfig', () => {
    const values = [0, -1, 1, 2, 0.5, 1.5, 3, 100, 99, 1e21, -0.5, true, 'x', '', null, [], {}];
    const keys: Record<string, string[]> = {
      recall: [
        'topK',
        'maxBodyChars',
        'tieMargin',
        'relativeMargin',
        'wordWeight',
        'centering',
        'softmaxTemperature',
        'seed',
        'persistIndex',
        'annFrom',
        'indexCacheDir',
        'nope',
      ],
      thresholds: ['cluster', 'recall', 'duplicate'],
      lifecycle: ['retireEta', 'candidateTrials', 'minEtaForRetrieval', 'etaDelta', 'utilityAlpha', 'trialWindow'],
      embedder: ['provider', 'timeoutMs'],
    };
    let accepted = 0;
    for (const [section, names] of Object.entries(keys))
      for (const name of names)
        for (const value of values) {
          const input = { [section]: { [name]: value } };
          const got = lean(input);
          if (got === null) continue;
          accepted++;
          expect(got, JSON.stringify(input)).toEqual(full(input));
        }
    for (const key of ['disabled', 'namespace', 'logLevel', 'license', 'synthesis'])
      for (const value of [...values, 'debug', 'silent', 'loud', 'ns']) {
        const got = lean({ [key]: value });
        if (got === null) continue;
        accepted++;
        expect(got, `${key}: ${JSON.stringify(value)}`).toEqual(full({ [key]: value }));
      }
    expect(accepted).toBeGreaterThan(60);
    expect(lean({ embedder: { provider: 'glove' } })).toEqual(full({ embedder: { provider: 'glove' } }));
    expect(lean({ embedder: { provider: 'openai' } })).toBeNull();
    expect(lean({ recall: { topK: 0 } })).toBeNull();
    expect(lean([])).toBeNull();
    expect(lean('recall')).toBeNull();
  });

  it('reads the SKILLSMITH_* variables as loadConfig does, and leaves a malformed one to it', () => {
    for (const env of [
      { SKILLSMITH_DISABLED: '1' },
      { SKILLSMITH_DISABLED: 'off' },
      { SKILLSMITH_LOG_LEVEL: 'debug' },
      { SKILLSMITH_EMBEDDER_PROVIDER: 'glove' },
    ])
      expect(lean({}, env)).toEqual(full({}, env));
    expect(lean({}, { SKILLSMITH_DISABLED: 'maybe' })).toBeNull();
    expect(lean({}, { SKILLSMITH_LOG_LEVEL: 'loud' })).toBeNull();
    expect(lean({}, { SKILLSMITH_LLM_MODEL: 'm' })).toBeNull();
  });
});
