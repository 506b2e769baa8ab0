// Capture entry point (`skillsmith/capture`): read agent logs of many formats into sessions, judge outcomes
// that the logs do not state, and apply the capture privacy policy. `memory.ingestFile` uses all three.

/** Parses the text of a capture file (any supported format, or the one given) into sessions and problems. */
export { parseCaptureText, type ParsedFile, type ParseOptions, type IngestProblem } from './capture/parse-file.js';
/** The capture formats: what `--format` accepts and what detection can answer. */
export {
  INGEST_FORMATS,
  isIngestFormat,
  type IngestFormat,
  type DetectedFormat,
  type RecordInfo,
} from './capture/types.js';
/** Builds the outcome judge a configuration asks for: rule-based, LLM-based or off. */
export {
  createJudge,
  RuleJudge,
  LlmJudge,
  type OutcomeJudge,
  type Judgement,
  type JudgeInput,
} from './capture/judge.js';
/** The capture privacy policy with defaults filled in (per-tool redact, hash or drop; allow and deny lists). */
export { resolvePrivacy, type PrivacyPolicy } from './capture/privacy.js';
/** The capture sections of the configuration, as a caller writes them. */
export type { PrivacyConfigInput, JudgeConfigInput, FieldMode } from './capture/capture-config.js';
/** Redacts secrets and personal data from text (what the privacy policy and the distillers apply). */
export { redactText } from './domain/redact.js';
