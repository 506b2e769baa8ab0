// Library entry point: explicit named exports only. The PostgreSQL store is `skillsmith/postgres`
// (src/postgres.ts), so that this entry never loads the `pg` driver.
export { openMemory, Memory, DisabledError, type OpenMemoryOptions, type IngestResult, type ExportResult, type ImportResult, type SessionRecorder } from './memory.js';
export { loadConfig, configSchema, ConfigError, type SkillsmithConfig, type SkillsmithConfigInput } from './config/config.js';
export type { Session, ToolCall, Skill, Draft, Fact, Outcome, OutcomeSource, SkillStatus, SkillKind, Provenance } from './domain/types.js';
export type { RecalledSkill } from './pipeline/recall.js';
export type { SynthesisReport, SkillRef } from './pipeline/synthesize.js';
export type { Embedder, EmbedderThresholds } from './embedders/embedder.js';
export type { Distiller, DistillInput } from './distillers/distiller.js';
export type { Store } from './store/store.js';
export { openSqliteStore, SqliteStore } from './store/sqlite/sqlite-store.js';
export { openStore, isPostgresUrl } from './store/open-store.js';
export { createGloveEmbedder, GloveEmbedder } from './embedders/glove/glove-embedder.js';
export { HeuristicDistiller } from './distillers/heuristic-distiller.js';
export { parseSkillMd, serializeSkillMd, validateSkillMd } from './domain/skill-md/index.js';
export { redactText } from './domain/redact.js';
export { createRecorder, ToolRecorder, RecordedSession, type RecordingTarget, type RecorderOptions, type StartOptions, type EndOptions, type EndResult } from './instrument/index.js';
export { createJudge, RuleJudge, LlmJudge, type OutcomeJudge, type Judgement, type JudgeInput } from './capture/judge.js';
export { parseCaptureText, type ParsedFile, type IngestProblem } from './capture/parse-file.js';
export { resolvePrivacy, type PrivacyPolicy } from './capture/privacy.js';
export type { IngestFormat, DetectedFormat, RecordInfo } from './capture/types.js';
export type { PrivacyConfigInput, JudgeConfigInput, FieldMode } from './capture/capture-config.js';
