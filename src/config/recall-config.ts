import type { SkillsmithConfig } from './config.js';
import { configFromEnv, mergeConfig } from './sources.js';

/**
 * The settings a process that only recalls reads, checked without the schema library: loading zod and building
 * `configSchema` cost a short-lived process (a hook that runs `skillsmith recall` on every prompt) about a
 * fifth of its start. Only settings whose every rule is written below are accepted here; anything else (another
 * section, an embedder other than GloVe, a value that breaks a rule) gives `null`, and the caller validates
 * with `loadConfig`, which accepts exactly the same valid settings and words the error for the invalid ones.
 * `test/recall-config.test.ts` holds the two to the same answers and the defaults to the schema's.
 */
export type RecallConfig = Pick<SkillsmithConfig, 'disabled' | 'namespace' | 'logLevel' | 'thresholds' | 'recall'> & {
  lifecycle: Pick<SkillsmithConfig['lifecycle'], 'retireEta'>;
  embedder: Pick<SkillsmithConfig['embedder'], 'provider'>;
};

type Rule =
  | { type: 'number'; int?: boolean; min?: number; max?: number }
  | { type: 'boolean' }
  | { type: 'string'; oneOf?: readonly string[] };

const num = (min?: number, max?: number): Rule => ({ type: 'number', min, max });
const int = (min?: number): Rule => ({ type: 'number', int: true, min });
const unit = num(0, 1);
const signed = num(-1, 1);

/** Each accepted key's rule and default (null: optional, no default), as `configSchema` has them. */
const TOP: Record<string, [Rule, unknown]> = {
  disabled: [{ type: 'boolean' }, false],
  namespace: [{ type: 'string' }, 'default'],
  logLevel: [{ type: 'string', oneOf: ['debug', 'info', 'warn', 'error', 'silent'] }, 'warn'],
};
const SECTIONS: Record<string, Record<string, [Rule, unknown]>> = {
  thresholds: { cluster: [signed, null], recall: [signed, null], duplicate: [signed, null] },
  recall: {
    topK: [int(1), 2],
    maxBodyChars: [int(100), 1500],
    tieMargin: [unit, 0.02],
    relativeMargin: [num(0, 2), 0.2],
    wordWeight: [unit, 0.7],
    centering: [unit, 0.5],
    softmaxTemperature: [num(0), 0],
    seed: [int(), 1],
    persistIndex: [{ type: 'boolean' }, true],
    annFrom: [int(1), 256],
  },
  // The one lifecycle setting recall reads; the others are accepted (their defaults do not matter here).
  lifecycle: {
    retireEta: [unit, 0.25],
    candidateTrials: [int(1), null],
    minEtaForRetrieval: [unit, null],
    etaDelta: [unit, null],
    utilityAlpha: [unit, null],
    trialWindow: [int(0), null],
    judgedTrials: [{ type: 'boolean' }, null],
  },
  embedder: { provider: [{ type: 'string', oneOf: ['glove'] }, 'glove'] },
};

function follows(value: unknown, rule: Rule): boolean {
  if (rule.type === 'boolean') return typeof value === 'boolean';
  if (rule.type === 'string')
    return typeof value === 'string' && value.length > 0 && (!rule.oneOf || rule.oneOf.includes(value));
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!rule.int || Number.isSafeInteger(value)) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.max === undefined || value <= rule.max)
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The recall settings of `input` (a configuration file's object) under the `SKILLSMITH_*` variables, when
 * every key given is one this module checks and follows its rule; null otherwise (validate with `loadConfig`).
 */
export function recallConfig(input: unknown, env: NodeJS.ProcessEnv = process.env): RecallConfig | null {
  if (!isObject(input)) return null;
  let merged: Record<string, unknown>;
  try {
    merged = mergeConfig(input, configFromEnv(env).input);
  } catch {
    // A variable that is not a number or boolean: loadConfig's path says which.
    return null;
  }
  const out: Record<string, unknown> = {};
  for (const [key, [, fallback]] of Object.entries(TOP)) out[key] = fallback;
  for (const [section, rules] of Object.entries(SECTIONS)) {
    const defaults: Record<string, unknown> = {};
    for (const [key, [, fallback]] of Object.entries(rules)) if (fallback !== null) defaults[key] = fallback;
    out[section] = defaults;
  }
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined) continue;
    const top = TOP[key];
    if (top) {
      if (!follows(value, top[0])) return null;
      out[key] = value;
      continue;
    }
    const rules = SECTIONS[key];
    if (!rules || !isObject(value)) return null;
    const section = out[key] as Record<string, unknown>;
    for (const [name, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const rule = rules[name];
      if (!rule || !follows(v, rule[0])) return null;
      section[name] = v;
    }
  }
  return out as RecallConfig;
}
