import { z } from 'zod';
import { judgeConfigSchema, privacyConfigSchema } from '../capture/capture-config.js';
import { PLANNING_TOOLS, REASONING_TOOLS } from '../domain/step-role.js';
import { DEFAULT_MIN_GAIN } from '../domain/admit.js';
import { ConfigError, configFromEnv, mergeConfig } from './sources.js';
import { objectShape } from '../support/zod-shape.js';

export { ConfigError } from './sources.js';

/**
 * One schema for every setting, with the defaults of SPEC.md in one place. Thresholds that depend on the
 * embedder live with the embedder (see Embedder.thresholds); here they are optional overrides.
 */
export const configSchema = z
  .strictObject({
    /** Memory off: no store, no synthesis, recall returns []. Also SKILLSMITH_DISABLED=1. */
    disabled: z.boolean().default(false),
    namespace: z.string().min(1).default('default'),
    license: z.string().min(1).default('MIT'),
    synthesis: z
      .strictObject({
        enabled: z.boolean().default(true),
        minSteps: z.number().int().min(1).default(2),
        minOccurrences: z.number().int().min(1).default(2),
        /**
         * `evidence`: admit on support and on the gain of following the procedure over the group's baseline
         * (shrunk for small counts), above the minSuccessRate floor. `absolute`: GAIA's preset, success rate
         * over the followers only, floor 0.8 unless minSuccessRate says otherwise.
         */
        admission: z.enum(['evidence', 'absolute']).default('evidence'),
        /** Floor on the followers' success rate (default 0.5; 0.8 under `admission: "absolute"`). */
        minSuccessRate: z.number().min(0).max(1).optional(),
        /** Shrunk gain over the baseline a procedure must reach under the evidence rule (a tie is no reason to refuse). */
        minGain: z.number().min(-1).max(1).default(DEFAULT_MIN_GAIN),
        /** Shrinkage pseudo-count k: gain * n / (n + k) for n followers. */
        gainShrinkage: z.number().min(0).default(4),
        /** A session "followed" a procedure when its tool sequence agrees with it at least this much (LCS F1). */
        followThreshold: z.number().min(0).max(1).default(0.5),
        /** Steps present in at least this fraction of successful sessions are required; rarer ones conditional. */
        consensusSupport: z.number().min(0).max(1).default(0.5),
        /** Steps in fewer than this fraction are dropped from the procedure altogether. */
        conditionalSupport: z.number().min(0).max(1).default(0.25),
        /** Weight of the tool-use signal against goal text when clustering (0 = goals only). */
        toolWeight: z.number().min(0).max(1).default(0.5),
        /** Goals at least this similar always share a cluster, whatever tools were used (template goals). */
        sameGoalThreshold: z.number().min(0).max(1).default(0.92),
        /**
         * A session that used the same tools as a cluster (tool part of the feature nearly identical) joins it
         * when its goal is at least this similar: one procedure worded several ways is one cluster.
         */
        sameProcedureGoalFloor: z.number().min(-1).max(1).default(0),
        /** How alike two sessions' tool use must be (cosine of the IDF-weighted tool sets) to count as one procedure. */
        sameProcedureToolFloor: z.number().min(0).max(1).default(0.95),
        maxClustersPerPass: z.number().int().min(1).default(10),
        evidenceLimit: z.number().int().min(1).default(4),
        traceCharCap: z.number().int().min(50).default(600),
        cooldownMs: z.number().int().min(0).default(60_000),
        /**
         * Reasoning and planning tools (`think`, Claude Code's `TodoWrite`, Codex's `update_plan`): never steps of a
         * procedure, and spans made mostly of them are rejected.
         */
        thinkTools: z.array(z.string()).default([...REASONING_TOOLS, ...PLANNING_TOOLS]),
        /** The deterministic verifier a draft must pass before it becomes a skill (MemOS's thresholds). */
        verify: z
          .strictObject({
            /** Tool coverage: share of the draft's tools and backticked identifiers the evidence shows. */
            minCoverage: z.number().min(0).max(1).default(0.5),
            /** Evidence resonance: share of the evidence traces sharing at least two words with the draft. */
            minResonance: z.number().min(0).max(1).default(0.5),
          })
          .prefault({}),
        /** Bound on the work of one pass: the rest waits for the next pass (the watermark remembers). */
        maxSessionsPerPass: z.number().int().min(1).default(200_000),
        /**
         * Members of one cluster that a pass reads to admit and distil it: the newest ones. A procedure seen five
         * hundred times is not learned better from five thousand (a success rate from 500 sessions is within about
         * 2 points), and agents' tools and policies drift, so the newest runs are the ones to learn from. Cluster
         * sizes and assignment still count every session.
         */
        maxClusterSessions: z.number().int().min(10).default(500),
        /** Run the pass by itself, off the hot path (recording and recall never wait for it). */
        auto: z
          .strictObject({
            /** After this many new sessions were recorded or ingested in this process (0 = off). */
            afterSessions: z.number().int().min(0).default(0),
            /** Every this many milliseconds (0 = off). */
            intervalMs: z.number().int().min(0).default(0),
            /** Once, on the first recall or recording of the process. */
            onFirstUse: z.boolean().default(false),
          })
          .prefault({}),
      })
      // The floor's default follows the admission rule: 0.5 for `evidence`, GAIA's 0.8 for `absolute`.
      .transform((s) => ({ ...s, minSuccessRate: s.minSuccessRate ?? (s.admission === 'absolute' ? 0.8 : 0.5) }))
      .prefault({}),
    /** Which distiller writes drafts: chosen by configuration, never swapped silently. */
    distiller: z.enum(['heuristic', 'llm']).default('heuristic'),
    llm: z
      .strictObject({
        provider: z.enum(['openai', 'llama-cpp']).default('openai'),
        /** OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:8080/v1 (llama.cpp). */
        baseUrl: z.string().url().optional(),
        model: z.string().min(1).optional(),
        apiKey: z.string().optional(),
        /** Local GGUF file for provider llama-cpp. */
        modelPath: z.string().optional(),
        temperature: z.number().min(0).max(2).default(0.1),
        timeoutMs: z.number().int().min(100).default(60_000),
        maxTokens: z.number().int().min(64).default(1200),
        /** When the model is unavailable: "none" skips the pass (default); "heuristic" distils with the heuristic distiller. */
        fallback: z.enum(['none', 'heuristic']).default('none'),
      })
      .prefault({}),
    embedder: z
      .strictObject({
        provider: z.enum(['glove', 'openai', 'transformers', 'llama-cpp']).default('glove'),
        baseUrl: z.string().url().optional(),
        model: z.string().min(1).optional(),
        apiKey: z.string().optional(),
        modelPath: z.string().optional(),
        timeoutMs: z.number().int().min(100).default(30_000),
        batchSize: z.number().int().min(1).default(64),
        /**
         * Provider openai: the vector length asked of the server (the `dimensions` field of an embeddings request,
         * which text-embedding-3 models and Matryoshka models served by Ollama or vLLM honour by shortening their
         * vectors). Every vector must come back this long; it is part of the embedder id, so vectors of another
         * length are never compared. Unset: the model's own length, and no field is sent.
         */
        dimensions: z.number().int().min(1).optional(),
      })
      .superRefine((e, ctx) => {
        // The local embedders make vectors of their model's own length: a setting they would ignore is refused.
        if (e.dimensions !== undefined && e.provider !== 'openai')
          ctx.addIssue({
            code: 'custom',
            path: ['dimensions'],
            message: `applies to embedder.provider "openai" only (the dimensions field of an OpenAI-compatible embeddings request); provider "${e.provider}" embeds at its model's own length: remove embedder.dimensions`,
          });
      })
      .prefault({}),
    logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('warn'),
    thresholds: z
      .strictObject({
        cluster: z.number().min(-1).max(1).optional(),
        recall: z.number().min(-1).max(1).optional(),
        duplicate: z.number().min(-1).max(1).optional(),
      })
      .prefault({}),
    recall: z
      .strictObject({
        topK: z.number().int().min(1).default(2),
        maxBodyChars: z.number().int().min(100).default(1500),
        /** Similarities within this margin are near-ties, broken by utility. */
        tieMargin: z.number().min(0).max(1).default(0.02),
        /** Skills below (best similarity - relativeMargin) are not served even when above the threshold. */
        relativeMargin: z.number().min(0).max(2).default(0.2),
        /**
         * Weight of word overlap with a skill's name and description in the order of the skills the embedding
         * found above the threshold (0 = the embedding alone). Never lets in a skill below the threshold.
         */
        wordWeight: z.number().min(0).max(1).default(0.7),
        /** How much of the namespace's mean goal direction to remove from skill and query vectors (0..1). */
        centering: z.number().min(0).max(1).default(0.5),
        /** > 0: among near-ties, draw by softmax over utility at this temperature (exploration); 0 = argmax. */
        softmaxTemperature: z.number().min(0).default(0),
        /** Seed of the softmax draw, so a run can be replayed. */
        seed: z.number().int().default(1),
        /**
         * Keep the recall index in a file (beside a SQLite memory; under indexCacheDir for PostgreSQL), so a new
         * process loads it instead of rebuilding it from every skill.
         */
        persistIndex: z.boolean().default(true),
        /** Where index files of a PostgreSQL memory go (default: $XDG_CACHE_HOME or ~/.cache, then skillsmith/recall). */
        indexCacheDir: z.string().min(1).optional(),
        /** Skill count from which recall searches an HNSW graph instead of scanning every vector. */
        annFrom: z.number().int().min(1).default(256),
      })
      .prefault({}),
    lifecycle: z
      .strictObject({
        candidateTrials: z.number().int().min(1).default(3),
        minEtaForRetrieval: z.number().min(0).max(1).default(0.5),
        retireEta: z.number().min(0).max(1).default(0.25),
        etaDelta: z.number().min(0).max(1).default(0.1),
        utilityAlpha: z.number().min(0).max(1).default(0.2),
        /**
         * A skill is judged on its latest this many trials (0: on all of them): one that worked for months and fails
         * from today on, a tool renamed or removed under it, retires after about this many failures in a row.
         */
        trialWindow: z.number().int().min(0).default(20),
        /**
         * A complete task's judged outcome (capture.judge) is a trial of the skills recalled for it, which the task's
         * reported outcome replaces: the track record of skills served through hooks, whose users seldom report.
         */
        judgedTrials: z.boolean().default(true),
      })
      .prefault({}),
    capture: z
      .strictObject({
        resultChars: z.number().int().min(0).default(2000),
        /** Largest accepted JSONL record, in bytes. */
        maxRecordBytes: z
          .number()
          .int()
          .min(1024)
          .default(4 * 1024 * 1024),
        maxCallsPerSession: z.number().int().min(1).default(1000),
        /** Privacy at capture time: redact (default), hash, drop or keep args/results, per tool (see capture/capture-config.ts). */
        privacy: privacyConfigSchema.prefault({}),
        /** Outcome judge for sessions without an outcome: rule (default), llm, off. */
        judge: judgeConfigSchema.prefault({}),
        /**
         * Retention: after each pass, sessions that ended more than this many days ago (one still open: last active,
         * by its last call else its start) are forgotten, as `sessions forget` forgets them (skills learned from them
         * stay). Unset: kept for good. Also SKILLSMITH_RETENTION_DAYS.
         */
        retentionDays: z.number().int().min(1).max(36500).optional(),
      })
      .prefault({}),
  })
  .strict();

export type SkillsmithConfig = z.infer<typeof configSchema>;
export type SkillsmithConfigInput = z.input<typeof configSchema>;

/** Keys people put in a configuration file that are chosen elsewhere: where they go. */
const CHOSEN_ELSEWHERE: Readonly<Record<string, string>> = {
  db: 'the memory is chosen with --db or SKILLSMITH_DB, not in the configuration file',
  token: 'the server token is given with --token or SKILLSMITH_TOKEN',
  port: 'the server port is given with --port',
  host: 'the server host is given with --host',
};

/** Where the unrecognised keys that belong elsewhere are given, in parentheses; nothing for the others. */
function elsewhere(keys: readonly PropertyKey[]): string {
  const said = keys.map((k) => CHOSEN_ELSEWHERE[String(k)]).filter(Boolean);
  return said.length ? ` (${said.join('; ')})` : '';
}

/** The keys the schema takes at `path` (a section such as `llm`), read from the schema itself. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: unknown = schema;
  for (const step of path) {
    at = objectShape(at)?.[String(step)];
    if (!at) return [];
  }
  return Object.keys(objectShape(at) ?? {});
}

/** "did you mean" for misspelt keys (`api_key` for `apiKey`, `timeout` for `timeoutMs`), in parentheses. */
function meant(keys: readonly PropertyKey[], known: readonly string[]): string {
  const fold = (k: string) => k.toLowerCase().replace(/[_-]/g, '');
  const hints = keys.flatMap((k) => {
    const f = fold(String(k));
    const hit =
      known.find((c) => fold(c) === f) ??
      known.find((c) => fold(c).startsWith(f) || f.startsWith(fold(c))) ??
      known.find((c) => editDistance(fold(c), f) <= 2);
    return hit ? [`${String(k)}: did you mean ${hit}?`] : [];
  });
  return hints.length ? ` (${hints.join('; ')})` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

/**
 * Validates a configuration: `input` (a file's or the caller's settings) under the `SKILLSMITH_*`
 * environment variables (see sources.ts). The error lists each bad key, and the variable it came from.
 */
export function loadConfig(
  input: unknown = {},
  env: NodeJS.ProcessEnv = process.env,
  source?: string,
): SkillsmithConfig {
  const fromEnv = configFromEnv<SkillsmithConfigInput>(env);
  const given = input ?? {};
  // Anything but an object is left for the schema to reject, naming the root.
  const merged =
    typeof given === 'object' && !Array.isArray(given)
      ? mergeConfig(given as SkillsmithConfigInput, fromEnv.input)
      : given;
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = i.path.join('.');
      const from = fromEnv.origin.get(key);
      const where =
        i.code !== 'unrecognized_keys'
          ? ''
          : i.path.length === 0
            ? elsewhere(i.keys)
            : meant(i.keys, knownKeys(configSchema, i.path));
      return `  ${key || '(root)'}: ${i.message}${where}${from ? ` (from environment variable ${from})` : ''}`;
    });
    throw new ConfigError(
      `invalid configuration${source ? ` in ${source}` : ''}:\n${lines.join('\n')}\nFix these keys or remove them to use the defaults.`,
    );
  }
  return parsed.data;
}
