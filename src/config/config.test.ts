import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { CONFIG_ENV, configFilePath, configFromEnv, readConfigFile } from './sources.js';
import { configFromFlags } from '../surfaces/cli/command-support.js';

const noEnv = {} as NodeJS.ProcessEnv;

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('loadConfig', () => {
  it('fills every default: embedded embedder, heuristic distiller', () => {
    const c = loadConfig({}, noEnv);
    expect(c.distiller).toBe('heuristic');
    expect(c.embedder.provider).toBe('glove');
    expect(c.llm).toMatchObject({ provider: 'openai', temperature: 0.1, timeoutMs: 60_000 });
    expect(c.synthesis.maxClustersPerPass).toBe(10);
  });

  it('has the verifier thresholds as settings, 0.5 each by default (MemOS), validated', () => {
    expect(loadConfig({}, noEnv).synthesis.verify).toEqual({ minCoverage: 0.5, minResonance: 0.5 });
    expect(loadConfig({ synthesis: { verify: { minResonance: 0.25 } } }, noEnv).synthesis.verify).toEqual({
      minCoverage: 0.5,
      minResonance: 0.25,
    });
    expect(thrown(() => loadConfig({ synthesis: { verify: { minCoverage: 1.5 } } }, noEnv)).message).toMatch(
      /synthesis\.verify\.minCoverage/,
    );
  });

  it('names every bad key, and refuses unknown ones', () => {
    const e = thrown(() => loadConfig({ distiller: 'gpt', llm: { baseUrl: 'not a url' }, embeder: {} }, noEnv));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toMatch(/distiller:/);
    expect(e.message).toMatch(/llm\.baseUrl:/);
    expect(e.message).toMatch(/embeder/);
  });

  it('refuses an unknown key inside a section too, with the key it may have meant (it was ignored without a word)', () => {
    const e = thrown(() =>
      loadConfig(
        {
          llm: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', api_key: 'x', fallbak: 'heuristic', zzz: 1 },
          synthesis: { verify: { mincoverage: 0.4 } },
          capture: { judge: { mode: 'rule' } },
        },
        noEnv,
      ),
    );
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toContain(
      '  llm: Unrecognized keys: "api_key", "fallbak", "zzz" (api_key: did you mean apiKey?; fallbak: did you mean fallback?)',
    );
    expect(e.message).toContain(
      '  synthesis.verify: Unrecognized key: "mincoverage" (mincoverage: did you mean minCoverage?)',
    );
    expect(e.message).not.toMatch(/capture/);
  });

  it('SKILLSMITH_* variables set the back ends and win over the given settings', () => {
    const env = {
      SKILLSMITH_DISTILLER: 'llm',
      SKILLSMITH_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      SKILLSMITH_LLM_MODEL: 'qwen2.5:7b-instruct',
      SKILLSMITH_LLM_API_KEY: 'sk-from-env',
      SKILLSMITH_LLM_TIMEOUT_MS: '5000',
      SKILLSMITH_EMBEDDER_PROVIDER: 'openai',
      SKILLSMITH_EMBEDDER_BASE_URL: 'http://127.0.0.1:11434/v1',
      SKILLSMITH_EMBEDDER_MODEL: 'nomic-embed-text',
    } as NodeJS.ProcessEnv;
    const c = loadConfig({ llm: { model: 'from-file', temperature: 0.3 }, embedder: { batchSize: 8 } }, env);
    expect(c.distiller).toBe('llm');
    expect(c.llm).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b-instruct',
      apiKey: 'sk-from-env',
      timeoutMs: 5000,
      temperature: 0.3,
    });
    expect(c.embedder).toMatchObject({ provider: 'openai', model: 'nomic-embed-text', batchSize: 8 });
  });

  it('empty variables are ignored; SKILLSMITH_DISABLED takes 1/true/0/false', () => {
    expect(
      loadConfig({ distiller: 'llm', llm: { baseUrl: 'http://h/v1' } }, {
        SKILLSMITH_DISTILLER: '',
      } as NodeJS.ProcessEnv).distiller,
    ).toBe('llm');
    expect(loadConfig({}, { SKILLSMITH_DISABLED: '1' } as NodeJS.ProcessEnv).disabled).toBe(true);
    expect(loadConfig({ disabled: true }, { SKILLSMITH_DISABLED: 'false' } as NodeJS.ProcessEnv).disabled).toBe(false);
  });

  it('SKILLSMITH_RETENTION_DAYS sets capture.retentionDays, over the file, and is checked as the key is', () => {
    const env = (days: string) => ({ SKILLSMITH_RETENTION_DAYS: days }) as NodeJS.ProcessEnv;
    expect(loadConfig({}, env('90')).capture.retentionDays).toBe(90);
    expect(loadConfig({ capture: { retentionDays: 30, resultChars: 500 } }, env(' 7 ')).capture).toMatchObject({
      retentionDays: 7,
      resultChars: 500,
    });
    expect(loadConfig({ capture: { retentionDays: 30 } }, env('')).capture.retentionDays).toBe(30);
    expect(loadConfig({}, {} as NodeJS.ProcessEnv).capture.retentionDays).toBeUndefined();
    expect(thrown(() => loadConfig({}, env('0'))).message).toMatch(
      /capture\.retentionDays: .* \(from environment variable SKILLSMITH_RETENTION_DAYS\)/,
    );
    expect(thrown(() => loadConfig({}, env('1.5'))).message).toMatch(/SKILLSMITH_RETENTION_DAYS/);
    expect(thrown(() => loadConfig({}, env('90d'))).message).toBe(
      'environment variable SKILLSMITH_RETENTION_DAYS="90d" is not a number',
    );
  });

  it('a bad variable is named in the error', () => {
    const e = thrown(() => loadConfig({}, { SKILLSMITH_EMBEDDER_PROVIDER: 'word2vec' } as NodeJS.ProcessEnv));
    expect(e.message).toMatch(/embedder\.provider: .* \(from environment variable SKILLSMITH_EMBEDDER_PROVIDER\)/);
    expect(thrown(() => loadConfig({}, { SKILLSMITH_LLM_TIMEOUT_MS: 'soon' } as NodeJS.ProcessEnv)).message).toBe(
      'environment variable SKILLSMITH_LLM_TIMEOUT_MS="soon" is not a number',
    );
    expect(thrown(() => loadConfig({}, { SKILLSMITH_DISABLED: 'maybe' } as NodeJS.ProcessEnv)).message).toMatch(
      /SKILLSMITH_DISABLED="maybe" is not a boolean/,
    );
  });

  it('every documented variable maps to a key the schema knows', () => {
    const env = Object.fromEntries(
      CONFIG_ENV.map((v) => [v.name, v.kind === 'number' ? '1000' : v.kind === 'boolean' ? '0' : 'x']),
    );
    const { origin } = configFromEnv(env);
    expect([...origin.values()].sort()).toEqual(CONFIG_ENV.map((v) => v.name).sort());
    // Only value errors (not "unrecognized key") may come back for these placeholder values.
    const e = thrown(() => loadConfig({}, env));
    expect(e.message).not.toMatch(/nrecognized/);
  });
});

describe('configuration files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-config-'));

  it('--config FILE, else SKILLSMITH_CONFIG, else ./skillsmith.config.json when present', () => {
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    expect(configFilePath(undefined, noEnv, cwd)).toBeNull();
    writeFileSync(join(cwd, 'skillsmith.config.json'), '{"distiller": "heuristic"}');
    expect(configFilePath(undefined, noEnv, cwd)).toBe(join(cwd, 'skillsmith.config.json'));
    expect(configFilePath(undefined, { SKILLSMITH_CONFIG: '/etc/skillsmith.json' } as NodeJS.ProcessEnv, cwd)).toBe(
      '/etc/skillsmith.json',
    );
    expect(configFilePath('mine.json', { SKILLSMITH_CONFIG: '/etc/skillsmith.json' } as NodeJS.ProcessEnv, cwd)).toBe(
      'mine.json',
    );
  });

  it('says which file is missing, not JSON, or not an object', () => {
    expect(thrown(() => readConfigFile(join(dir, 'nope.json'))).message).toBe(
      `cannot read config file ${join(dir, 'nope.json')}: no such file`,
    );
    writeFileSync(join(dir, 'bad.json'), '{"distiller": "llm",}');
    expect(thrown(() => readConfigFile(join(dir, 'bad.json'))).message).toMatch(
      /config file .*bad\.json is not valid JSON/,
    );
    writeFileSync(join(dir, 'list.json'), '["llm"]');
    expect(thrown(() => readConfigFile(join(dir, 'list.json'))).message).toMatch(/list\.json must hold a JSON object/);
  });

  it('the command line: the file found in the working directory, the variables over it, --namespace over both', () => {
    const cwd = join(dir, 'cli');
    mkdirSync(cwd);
    writeFileSync(
      join(cwd, 'skillsmith.config.json'),
      JSON.stringify({ namespace: 'file', distiller: 'llm', llm: { baseUrl: 'http://file/v1', model: 'm' } }),
    );
    const env = { SKILLSMITH_LLM_BASE_URL: 'http://env/v1' } as NodeJS.ProcessEnv;
    const c = configFromFlags({}, env, cwd);
    expect(c).toMatchObject({ namespace: 'file', distiller: 'llm', llm: { baseUrl: 'http://env/v1', model: 'm' } });
    expect(configFromFlags({ namespace: 'flag' }, env, cwd).namespace).toBe('flag');
  });

  it('an invalid file is named in the error with the bad key', () => {
    const path = join(dir, 'invalid.json');
    writeFileSync(path, JSON.stringify({ embedder: { provider: 'word2vec' } }));
    const e = thrown(() => configFromFlags({ config: path }, noEnv, dir));
    expect(e.message).toMatch(
      new RegExp(`^invalid configuration in ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\n  embedder\\.provider:`),
    );
  });

  it('says where a key given elsewhere goes: the memory is --db or SKILLSMITH_DB, not a configuration key', () => {
    const path = join(dir, 'with-db.json');
    writeFileSync(path, JSON.stringify({ db: 'postgres://fleet@db/skills', namespace: 'team' }));
    const e = thrown(() => configFromFlags({ config: path }, noEnv, dir));
    expect(e.message).toContain(
      '(root): Unrecognized key: "db" (the memory is chosen with --db or SKILLSMITH_DB, not in the configuration file)',
    );
    // A key nobody gives elsewhere is named as before, without a hint.
    writeFileSync(path, JSON.stringify({ colour: 'blue' }));
    expect(thrown(() => configFromFlags({ config: path }, noEnv, dir)).message).toContain(
      '(root): Unrecognized key: "colour"\n',
    );
  });
});
