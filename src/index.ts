// Skillsmith's main entry: the memory facade, its options and result types, the domain types, configuration
// loading and the error family. Explicit named exports only. The rest sits behind subpath entries, so this one
// stays small, names no store driver and never loads the `pg` driver:
//   skillsmith/sqlite      the SQLite store and `openStore` (src/sqlite.ts)
//   skillsmith/postgres    the PostgreSQL store (src/postgres.ts)
//   skillsmith/builtins    the built-in embedder and distiller `openMemory` uses by default (src/builtins.ts)
//   skillsmith/capture     capture parsers, outcome judges and the capture privacy policy (src/capture.ts)
//   skillsmith/instrument  tool wrappers that record every call into a session (src/instrument.ts)
//   skillsmith/skill-md    the SKILL.md parse / serialize / validate module (src/skill-md.ts)

// ---- The memory facade ----
/** Opens a procedural memory on a SQLite file, a postgres:// URL or a ready Store. */
export { openMemory } from './app/open-memory.js';
/** The procedural memory: capture, synthesis, recall and the skill catalogue behind one object. */
export { Memory } from './app/memory.js';
/** Options of `openMemory`: where the memory lives, its namespace, configuration and injected back ends. */
export type { OpenMemoryOptions } from './app/open-memory.js';
/** What `memory.ingestFile` / `ingestText` stored and which records it refused, and how `ingestText` reads. */
export type { IngestResult, IngestTextOptions } from './app/types.js';
/** What `memory.previewText` would store (the shape of `ingest --dry-run --json`). */
export type { DryRunResult } from './capture/ingest.js';
/** What `memory.skills.export` wrote and skipped. */
export type { ExportResult } from './app/types.js';
/** What `memory.skills.import` stored, skipped and warned about. */
export type { ImportResult } from './app/types.js';
/** A live session opened by `memory.startSession`: `call()` records a tool call, `end()` its outcome. */
export type { SessionRecorder } from './app/types.js';
/** What `memory.recall` takes besides the goal: topK, namespace, session, whether to record, the agent's tools. */
export type { RecallOptions, SessionRecall } from './app/types.js';
/** What `memory.sessions.forgetBefore` forgot (or would forget), and the sessions it kept for want of a date. */
export type { RetentionResult } from './app/types.js';
/** One tool call as `SessionRecorder.call` takes it. */
export type { RecordedCall } from './app/types.js';
/** What `memory.startSession` takes: the goal, and optionally an id, a cue, an agent id, a source, a namespace. */
export type { StartSessionOptions } from './capture/types.js';
/** The grouped rarer methods: `memory.sessions` and `memory.skills`. */
export type { MemorySessions, MemorySkills } from './app/memory.js';
/** What `memory.skills.edit` and `memory.skills.revertEdit` answer: the skill now, whether it changed, and notes. */
export type { EditResult } from './app/catalog.js';
/** What `memory.feedback` takes besides the signal: a session, an idempotency key (`feedbackId`), a namespace. */
export type { FeedbackOptions } from './app/catalog.js';
/** Feedback on a skill as `memory.feedback` takes it besides the words pass, fail, up, down and reward=<0..1>. */
export type { Signal } from './domain/lifecycle.js';
/** What `memory.on` delivers: the skill event types, an event, a listener. */
export type { BusEvent, Listener, SkillEventType } from './support/event-bus.js';
/** A stored skill event, as `memory.events` lists them. */
export type { SkillEvent } from './store/store.js';
/** What `memory.skills.explain` gives: a skill's provenance, versions and track record. */
export type { Explanation } from './pipeline/explain.js';
/** What `memory.skills.diff` gives: what changed between two versions of a skill. */
export type { SkillDiff } from './pipeline/diff.js';
/** What `memory.skills.compile` takes and gives. */
export type { CompileRequest, CompileResult } from './pipeline/compile.js';
/** The logger `openMemory` takes, and its levels. */
export type { Logger, LogLevel } from './support/log.js';

// ---- Configuration ----
/** Reads the configuration: schema defaults, then the file, then `SKILLSMITH_*` variables, then overrides. */
export { loadConfig } from './config/config.js';
/** The zod schema of the whole configuration (the one place its defaults are written). */
export { configSchema } from './config/config.js';
/** The configuration after defaults, as the engine reads it. */
export type { SkillsmithConfig } from './config/config.js';
/** The configuration as a caller writes it: every key optional. */
export type { SkillsmithConfigInput } from './config/config.js';

// ---- Domain types ----
/** One agent run toward one goal: its tool calls and outcome. */
export type { Session } from './domain/types.js';
/** One recorded tool call of a session. */
export type { ToolCall } from './domain/types.js';
/** A learned or imported procedure, with its lifecycle state and track record. */
export type { Skill } from './domain/types.js';
/** A distiller's proposal for a skill, before verification and reconciliation. */
export type { Draft } from './domain/types.js';
/** A stored fact that compile can turn into a skill. */
export type { Fact } from './domain/types.js';
/** A session's outcome: success, failure or unknown. */
export type { Outcome } from './domain/types.js';
/** Who decided an outcome: reported by the caller or judged. */
export type { OutcomeSource } from './domain/types.js';
/** A skill's lifecycle state: probationary, active or retired. */
export type { SkillStatus } from './domain/types.js';
/** What a skill holds: a playbook (a tool sequence) or a heuristic (advice). */
export type { SkillKind } from './domain/types.js';
/** One source a skill was learned from (a session, a fact or another skill). */
export type { Provenance } from './domain/types.js';
/** A skill returned by `memory.recall`, with its score. */
export type { NearestSkill, RecalledSkill } from './pipeline/recall.js';
/** What a synthesis pass created, updated and skipped. */
export type { SynthesisReport } from './pipeline/synthesize.js';
/** A skill named in a synthesis report. */
export type { SkillRef } from './pipeline/synthesize.js';
/** Sessions that ran the same steps but were worded too far apart to group (`memory.synthesis.lookAlike`). */
export type { LookAlike } from './pipeline/stages/look-alike.js';
/** A step those sessions share: its tool, and for a command run the command's head. */
export type { LookAlikeStep } from './domain/look-alike.js';

// ---- Back-end interfaces `openMemory` accepts (built-in ones: skillsmith/sqlite, skillsmith/builtins) ----
/** The embedder interface: text to vectors, with the similarity thresholds that suit it. */
export type { Embedder, EmbedderThresholds } from './embedders/embedder.js';
/** The distiller interface: a cluster of sessions to a skill draft. */
export type { Distiller, DistillInput } from './distillers/distiller.js';
/** The store interface that SQLite and PostgreSQL implement. */
export type { HeldLock, Store } from './store/store.js';

// ---- Errors: every error a caller can meet is a SkillsmithError with a stable `code` ----
/** Base of the family: `code`, and `isInstance()` that works across copies of the module. */
export { SkillsmithError } from './errors/skillsmith-error.js';
/** The `code` of any Skillsmith error, or undefined. */
export { errorCode } from './errors/skillsmith-error.js';
/** Each code's REST status and CLI exit code, and the two look-ups the surfaces use. */
export { ERROR_OUTCOMES, httpStatusOf, exitCodeOf, type ErrorOutcome } from './errors/error-codes.js';
/** CONFIG_INVALID: a configuration that cannot be used. */
export { ConfigError } from './errors/config-error.js';
/** USAGE: a command line the CLI cannot run. */
export { UsageError } from './errors/usage-error.js';
/** UNSAFE_BIND: a server asked to listen beyond loopback without a (long enough) token. */
export { UnsafeBindError } from './errors/unsafe-bind-error.js';
/** INPUT_INVALID: a record, file or argument that cannot be used. */
export { InputError } from './errors/input-error.js';
/** COMPILE_INVALID: a compile request that cannot be compiled. */
export { CompileError } from './errors/compile-error.js';
/** HTTP_REQUEST: a REST request refused with the status it carries. */
export { HttpError } from './errors/http-error.js';
/** NOT_FOUND: no such session or skill in the namespace. */
export { NotFoundError } from './errors/not-found-error.js';
/** CONFLICT: the memory's state refuses a change (a superseded target no longer live, a name already taken). */
export { ConflictError } from './errors/conflict-error.js';
/** PASS_LOCKED: a synthesis pass is already running on the namespace. */
export { PassLockedError } from './errors/pass-locked-error.js';
/** SESSION_STATE: the session's state forbids the operation. */
export { SessionStateError } from './errors/session-state-error.js';
/** READ_ONLY_MEMORY: a write to a memory this account may only read. */
export { ReadOnlyMemoryError } from './errors/read-only-memory-error.js';
/** DISABLED: the memory is switched off. */
export { DisabledError } from './errors/disabled-error.js';
/** TRANSFER_FAILED: `migrate` cannot copy the memory. */
export { TransferError } from './errors/transfer-error.js';
/** BACKEND_UNAVAILABLE: a back end's own files or service cannot be used. */
export { BackendUnavailableError } from './errors/backend-unavailable-error.js';
/** BACKEND_CONFIG: a configured back end lacks a setting it needs. */
export { BackendConfigError } from './errors/backend-config-error.js';
/** BACKEND_LOAD_FAILED: a local back end is installed but cannot load. */
export { BackendLoadError } from './errors/backend-load-error.js';
/** MISSING_OPTIONAL_DEPENDENCY: a back end needs a package that is not installed. */
export { MissingOptionalDependencyError } from './errors/missing-optional-dependency-error.js';
/** CIRCUIT_OPEN: a model endpoint failed repeatedly and is not called until its cool-off ends. */
export { CircuitOpenError } from './errors/circuit-open-error.js';
/** EMBEDDER_MISMATCH: the memory's vectors were made by another embedder (run `skillsmith reembed`). */
export { EmbedderMismatchError } from './errors/embedder-mismatch-error.js';
/** EMBEDDER_NOT_READY: an embedder used before `ready()` told its dimension. */
export { EmbedderNotReadyError } from './errors/embedder-not-ready-error.js';
/** EMBEDDING_DIMENSION: an embedder returned vectors of another dimension. */
export { EmbeddingDimensionError } from './errors/embedding-dimension-error.js';
/** ENDPOINT_HTTP_ERROR: a model endpoint answered with a non-2xx status. */
export { EndpointHttpError } from './errors/endpoint-http-error.js';
/** ENDPOINT_TIMEOUT: a model endpoint did not answer in time. */
export { EndpointTimeoutError } from './errors/endpoint-timeout-error.js';
/** ENDPOINT_UNREACHABLE: a model endpoint cannot be reached. */
export { EndpointUnreachableError } from './errors/endpoint-unreachable-error.js';
/** LLM_UNAVAILABLE: no language model answered (and no fallback was allowed). */
export { LlmUnavailableError } from './errors/llm-unavailable-error.js';
/** MALFORMED_DRAFT: a model's skill draft was rejected. */
export { MalformedDraftError } from './errors/malformed-draft-error.js';
/** MALFORMED_RESPONSE: a model endpoint sent a response that cannot be read. */
export { MalformedResponseError } from './errors/malformed-response-error.js';
/** ANSWER_TRUNCATED: a model's answer stopped at its token limit (raise the max-tokens setting). */
export { AnswerTruncatedError } from './errors/answer-truncated-error.js';
