import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors/config-error.js';

/**
 * Where settings come from, lowest precedence first: the schema's defaults, a JSON file (`--config FILE`,
 * else `SKILLSMITH_CONFIG`, else `./skillsmith.config.json` when it exists), `SKILLSMITH_*` environment
 * variables, then command-line flags. The library's `openMemory({ config })` takes the place of the file.
 */

export const CONFIG_FILE_NAME = 'skillsmith.config.json';

/**
 * Settings as given, before validation: config.ts's SkillsmithConfigInput at the call sites. Generic here so
 * that this file does not import the schema (config.ts imports this one).
 */
type Settings = object;

export { ConfigError };

type EnvKind = 'string' | 'number' | 'boolean';

/** The environment variables read, the key each sets, and how its text is read. */
export const CONFIG_ENV: ReadonlyArray<{ name: string; key: string; kind: EnvKind }> = [
  { name: 'SKILLSMITH_DISABLED', key: 'disabled', kind: 'boolean' },
  { name: 'SKILLSMITH_LOG_LEVEL', key: 'logLevel', kind: 'string' },
  { name: 'SKILLSMITH_DISTILLER', key: 'distiller', kind: 'string' },
  { name: 'SKILLSMITH_LLM_PROVIDER', key: 'llm.provider', kind: 'string' },
  { name: 'SKILLSMITH_LLM_BASE_URL', key: 'llm.baseUrl', kind: 'string' },
  { name: 'SKILLSMITH_LLM_MODEL', key: 'llm.model', kind: 'string' },
  { name: 'SKILLSMITH_LLM_API_KEY', key: 'llm.apiKey', kind: 'string' },
  { name: 'SKILLSMITH_LLM_MODEL_PATH', key: 'llm.modelPath', kind: 'string' },
  { name: 'SKILLSMITH_LLM_TIMEOUT_MS', key: 'llm.timeoutMs', kind: 'number' },
  { name: 'SKILLSMITH_LLM_FALLBACK', key: 'llm.fallback', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_PROVIDER', key: 'embedder.provider', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_BASE_URL', key: 'embedder.baseUrl', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_MODEL', key: 'embedder.model', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_API_KEY', key: 'embedder.apiKey', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_MODEL_PATH', key: 'embedder.modelPath', kind: 'string' },
  { name: 'SKILLSMITH_EMBEDDER_TIMEOUT_MS', key: 'embedder.timeoutMs', kind: 'number' },
  { name: 'SKILLSMITH_EMBEDDER_DIMENSIONS', key: 'embedder.dimensions', kind: 'number' },
  { name: 'SKILLSMITH_RETENTION_DAYS', key: 'capture.retentionDays', kind: 'number' },
];

/** The settings the environment sets, and which variable set each key (for error messages). */
export function configFromEnv<T extends Settings = Record<string, unknown>>(
  env: NodeJS.ProcessEnv,
): { input: T; origin: Map<string, string> } {
  const input: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  for (const { name, key, kind } of CONFIG_ENV) {
    const text = env[name]?.trim();
    if (!text) continue;
    setPath(input, key, parseEnv(name, text, kind));
    origin.set(key, name);
  }
  return { input: input as T, origin };
}

function parseEnv(name: string, text: string, kind: EnvKind): unknown {
  if (kind === 'string') return text;
  if (kind === 'number') {
    const n = Number(text);
    if (!Number.isFinite(n)) throw new ConfigError(`environment variable ${name}="${text}" is not a number`);
    return n;
  }
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new ConfigError(`environment variable ${name}="${text}" is not a boolean (use 1 or 0)`);
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

/** `over` on top of `base`, object by object (arrays and scalars are replaced whole). */
export function mergeConfig<T extends Settings>(base: T, over: T | undefined): T {
  if (!over) return base;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over as Record<string, unknown>)) {
    const prev = out[k];
    out[k] = isPlain(v) && isPlain(prev) ? mergeConfig(prev, v) : v;
  }
  return out as T;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a JSON configuration file; the error names the file and what is wrong with it. */
export function readConfigFile<T extends Settings = Record<string, unknown>>(path: string): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot read config file ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (!isPlain(value))
    throw new ConfigError(`config file ${path} must hold a JSON object, e.g. {"distiller": "heuristic"}`);
  return value as T;
}

/** The file the command line uses: `--config FILE`, else SKILLSMITH_CONFIG, else ./skillsmith.config.json if present. */
export function configFilePath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  /** The folder whose ./skillsmith.config.json is read when it exists; null: none (a hook). */
  cwd: string | null = process.cwd(),
): string | null {
  if (flag) return flag;
  if (env.SKILLSMITH_CONFIG?.trim()) return env.SKILLSMITH_CONFIG.trim();
  if (cwd === null) return null;
  const local = resolve(cwd, CONFIG_FILE_NAME);
  return existsSync(local) ? local : null;
}

/** What the command line's configuration file says ({} when there is none). */
export function configFileInput<T extends Settings = Record<string, unknown>>(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): T {
  const path = configFilePath(flag, env, cwd);
  return path ? readConfigFile<T>(path) : ({} as T);
}
