import { z } from 'zod';

/**
 * Configuration of capture-time privacy and of the outcome judge. Plain schemas (zod only, no other
 * imports) so that `config/config.ts` can nest them under `capture` without pulling in the capture code.
 */

/**
 * What happens to a call's arguments or result before it is stored:
 * - `redact` (default): secrets and personal data (SPEC "Evidence": API keys, tokens, JWTs, private keys,
 *   passwords in URLs, emails, phone and card numbers) become typed markers such as `[REDACTED:api_key]`.
 * - `hash`: like `redact`, but personal data becomes a keyed hash such as `[HASH:email:1f0c9a2b]`, so that two
 *   calls with the same customer still look alike (parameters and data flow stay learnable) while the value
 *   itself is not stored. Credentials are always plain markers.
 * - `drop`: nothing is stored (args `{}`, result `''`); the call itself (tool, ok, duration) is kept.
 * - `keep`: stored as is (only capped). Opt-in, per tool, for data known to be harmless.
 */
export const fieldModeSchema = z.enum(['redact', 'hash', 'drop', 'keep']);
export type FieldMode = z.infer<typeof fieldModeSchema>;

export const toolPrivacySchema = z
  .object({
    args: fieldModeSchema.optional(),
    results: fieldModeSchema.optional(),
    /** Only these top-level argument keys are stored (the others are dropped). */
    allowArgs: z.array(z.string().min(1)).optional(),
    /** These argument keys are dropped, at any depth. */
    denyArgs: z.array(z.string().min(1)).optional(),
  })
  .strict();

export const privacyConfigSchema = z
  .object({
    args: fieldModeSchema.default('redact'),
    results: fieldModeSchema.default('redact'),
    /** The goal text: `redact` (default) or `keep`. */
    goal: z.enum(['redact', 'keep']).default('redact'),
    /** Key of the `hash` mode's HMAC. Set it (and keep it) to make hashes unguessable from a list of candidates. */
    salt: z.string().default(''),
    /** Per-tool overrides, keyed by tool name or glob (`get_*`, `*_secret`); the first matching key wins. */
    tools: z.record(z.string(), toolPrivacySchema).default({}),
    /** When set, only matching tools keep their args and results; other tools are recorded as `drop`. */
    allowTools: z.array(z.string().min(1)).optional(),
    /** Tools recorded as `drop` whatever else is configured. */
    denyTools: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type PrivacyConfig = z.infer<typeof privacyConfigSchema>;
export type PrivacyConfigInput = z.input<typeof privacyConfigSchema>;

/** A final answer that reads as giving up makes the default rule say `unknown` rather than `success`. */
export const DEFAULT_GIVE_UP_PATTERN =
  "\\b(?:sorry|apologi[sz]e|unable to|not able to|cannot|can't|can not|could not|couldn't|failed to|was not possible|isn't possible|is not possible)\\b";

export const judgeConfigSchema = z
  .object({
    /**
     * How sessions without an outcome get one: `rule` (default, conservative), `llm` (one model call per
     * session, needs a model), `off` (they stay `unknown` and are not learned from).
     */
    mode: z.enum(['rule', 'llm', 'off']).default('rule'),
    /** Rule: success needs the agent's final text answer after the last call (logs that have none stay unknown). */
    requireFinalAnswer: z.boolean().default(true),
    /** Rule: sessions with fewer calls stay unknown. */
    minCalls: z.number().int().min(0).default(1),
    /** Rule: a final answer matching this (case-insensitive) regular expression stays unknown. '' disables it. */
    giveUpPattern: z
      .string()
      .default(DEFAULT_GIVE_UP_PATTERN)
      .refine((s) => {
        try {
          new RegExp(s, 'i');
          return true;
        } catch {
          return false;
        }
      }, 'must be a valid regular expression'),
    /** LLM judge: what a failed or unparseable model call gives (`unknown`, or the rule's decision). */
    onError: z.enum(['unknown', 'rule']).default('unknown'),
    /** LLM judge: overrides of the `llm` section (OpenAI-compatible server). */
    baseUrl: z.string().url().optional(),
    model: z.string().min(1).optional(),
    apiKey: z.string().optional(),
    timeoutMs: z.number().int().min(100).optional(),
    /** LLM judge: characters of the transcript sent to the model. */
    maxPromptChars: z.number().int().min(500).default(6000),
    /**
     * LLM judge: the longest answer, in tokens (the verdict and one sentence of reason; a reasoning model spends
     * tokens thinking first). An answer cut off at this limit gives `unknown` (or the rule's decision), saying so.
     */
    maxTokens: z.number().int().min(16).default(100),
  })
  .strict();
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;
export type JudgeConfigInput = z.input<typeof judgeConfigSchema>;
