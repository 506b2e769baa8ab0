// The words of SPEC.md as types. Pure data: no I/O, no drivers.

export type Outcome = 'success' | 'failure' | 'unknown';
/** Every outcome, in the order messages list them. */
export const OUTCOMES: readonly Outcome[] = ['success', 'failure', 'unknown'];

/** Where a session's outcome came from: reported (source, person, pipeline) or judged (the outcome judge). */
export type OutcomeSource = 'reported' | 'judged';

/** One step of a session: a tool call with its arguments and (capped) result. */
export interface ToolCall {
  /** 0-based position of the call in its session. */
  position: number;
  tool: string;
  args: Record<string, unknown>;
  /** Result summary, capped (see config.capture.resultChars). */
  result: string;
  ok: boolean;
  error: string | null;
  durationMs: number | null;
  /** ISO-8601 time of the call, when known. */
  at: string | null;
}

/** One agent run toward one goal. */
/**
 * What a synthesis pass clusters a session by: its goal and which tools its calls used, in order, without their
 * arguments or results (a pass reads every new session this way; full sessions only for the clusters it distils).
 */
export interface SessionOutline {
  id: string;
  goal: string;
  outcome: Outcome;
  /** `key`: what the call aligns on in a procedure (commands.ts: stepKey), when it differs from its tool. */
  calls: (Pick<ToolCall, 'tool' | 'ok'> & { key?: string })[];
  seq?: number;
}

export interface Session {
  id: string;
  namespace: string;
  goal: string;
  /**
   * The user's own first words, when the source has them apart from the goal (e.g. a benchmark's task
   * statement as goal and the first user message as cue): a second way to find the skills learned from it.
   */
  cue?: string | null;
  outcome: Outcome;
  /** Where the outcome came from (default `reported`); a judged outcome is replaced by a reported one. */
  outcomeSource?: OutcomeSource;
  /** Optional reward in [0,1]. */
  reward: number | null;
  agentId: string | null;
  source: string | null;
  startedAt: string;
  endedAt: string | null;
  calls: ToolCall[];
  /**
   * Free-form labels from the source (e.g. tau's `meta`). Stored for people and for scoring tools;
   * the engine never reads it to cluster or distil.
   */
  labels?: Record<string, unknown> | null;
  /** Monotonic insertion number assigned by the store: the synthesis watermark counts these. */
  seq?: number;
}

/** A semantic memory: a sentence the agent knows. May be a parent of a skill. */
export interface Fact {
  id: string;
  namespace: string;
  text: string;
  source: string | null;
  createdAt: string;
}

/** A run of >= minSteps successful tool calls inside a session: the thing that repeats. */
export interface Span {
  sessionId: string;
  /** Positions [start, end) of the session's calls covered by the span. */
  start: number;
  end: number;
  /** The successful calls of the span, in order. */
  calls: ToolCall[];
  /**
   * What the user asked, as the session recorded it (goal and first message): a value it names came from the
   * user even where a result capture cut might have held it.
   */
  request?: string;
}

export type SkillStatus = 'probationary' | 'active' | 'retired';
export type SkillKind = 'playbook' | 'heuristic';
/** internal: synthesised or compiled here (may be recalled). external: imported (never recalled until promoted). */
export type SkillCorpus = 'internal' | 'external';

/**
 * A branch: when `tool`'s result shows a value of `in` at `path` (a dot path, `[]` for any list element). With
 * `text`, the result is plain text the tool printed: `path` is the key of one of its `Key: value` lines (a value
 * of `in` is the line's value or one of its ` | `-separated parts), or `` for a one-line text (a value of `in` is
 * the whole text). Only a step's condition reads text; a branch's is always a JSON path (the recall contract).
 * With `available`, the condition is that the agent can call `tool` (domain/toolsets.ts): `path` is `` and `in`
 * is empty, so a reader that knows only conditions on values never takes the branch and follows the main path,
 * which needs none of the branch's tools.
 */
export interface BranchCondition {
  tool: string;
  path: string;
  in: string[];
  text?: true;
  available?: true;
}

/** One step of a distilled procedure. */
export interface ProcedureStep {
  tool: string;
  /** What the step aligns on when it is more than its tool (commands.ts: stepKey): a command runner's command head. */
  key?: string;
  /**
   * For a tool that runs command lines (Bash, shell, run_shell): the command the sessions ran at this step,
   * `exact` when at least half of them ran that very line, else an example of the step's command (commands.ts);
   * `prints`: the short output it printed every time, when it did.
   */
  command?: { text: string; exact: boolean; prints?: string };
  /** Fraction of the cluster's successful sessions in which the step occurs. */
  support: number;
  /** Steps present in most sessions are the procedure; rarer ones are conditional. */
  conditional: boolean;
  /** Argument names whose values vary across sessions (parameters of the skill). */
  parameters: string[];
  /**
   * Argument names fed by an earlier step's result: `arg <- tool` pairs, with the field of that result that held
   * the value (`orders[]`, a dot path; `` for the whole result) when known.
   */
  dataFlow: { arg: string; fromTool: string; path?: string; part?: true }[];
  /**
   * Where each traced argument's value came from, agreed across the sessions: a field of an earlier step's
   * result, found by value, or the user when no earlier result held it.
   */
  sources?: ArgumentSource[];
  /**
   * Arguments every session passed with the same value that no earlier result supplied, with that value when it
   * is a setting safe to quote (`mode` "4g_5g_preferred"); without it when it may be someone's data.
   */
  fixed?: { arg: string; value?: string }[];
  /**
   * Arguments the sessions set to one of two or three words, each value passed in at least two sessions, that no
   * earlier result supplied: the values the tool took there (`reason` "no longer needed" or "ordered by mistake").
   */
  choices?: { arg: string; values: string[] }[];
  /** The step is usually a run of the same call (e.g. one lookup per order). */
  repeated: boolean;
  /** For a repeated step: the argument whose value changes from one call of the run to the next (`order_id`). */
  over?: string;
  /**
   * A repeated step that went through the same files in every session (a release reads and edits `package.json`
   * and `CHANGELOG.md`): the argument, and those files relative to the folder they share, in the order the
   * first session took them.
   */
  each?: { arg: string; values: string[] };
  /**
   * Arguments the agent wrote or chose for the case in every session (a patch, a line of code, a file it went to
   * that no request names): never the user's.
   */
  written?: string[];
  /**
   * Of those, the ones that took the value an earlier step was given (the file a read opened, then edited): `arg`
   * had the value of `fromArg` of the latest earlier `tool` call in most sessions that passed it.
   */
  sameAs?: { arg: string; tool: string; fromArg: string }[];
  /**
   * For a step some sessions skipped: what an earlier lookup showed in the sessions that took it, before they did,
   * and never in the others (branches.ts: separatingCondition), when the sessions say so cleanly. `text`: read from
   * a plain-text result (a `Key: value` line's key at `path`, `` for a one-line text).
   */
  when?: BranchCondition;
  /**
   * For a state-changing step: what its result showed every time it worked (main-path.ts: constantFields), an
   * outcome field (`status` "cancelled") or a plain-text answer's first line (path ``, "Airplane Mode is now
   * OFF."): what the agent checks after the call, and for a switch, the state it is meant to leave.
   */
  shows?: { path: string; value: string }[];
}

/** Where an argument of a step takes its value from. */
export type ArgumentSource =
  | { arg: string; from: 'user' }
  | { arg: string; from: 'result'; tool: string; path: string; part?: true };

/** A distilled candidate before verification. */
export interface Draft {
  name: string;
  /** Trigger text; becomes the SKILL.md `description`. */
  whenToUse: string;
  toolsRequired: string[];
  /** The procedure's tool calls in order (required steps and conditional ones). */
  toolSequence: string[];
  /** Markdown body: `# Title`, numbered steps, `## Edge cases`. */
  body: string;
  kind: SkillKind;
  steps: ProcedureStep[];
}

export interface Skill {
  id: string;
  namespace: string;
  name: string;
  description: string;
  /** Canonical SKILL.md text (frontmatter + body). */
  skillMd: string;
  body: string;
  version: string;
  kind: SkillKind;
  corpus: SkillCorpus;
  status: SkillStatus;
  enabled: boolean;
  toolsRequired: string[];
  toolSequence: string[];
  /** Sessions of the cluster that followed the procedure and succeeded. */
  successCount: number;
  /** Sessions of the cluster that followed the procedure, whatever the outcome. */
  attemptCount: number;
  /** Distinct successful sessions that support the skill. */
  support: number;
  eta: number;
  utility: number;
  trialsAttempted: number;
  trialsPassed: number;
  /**
   * How many of its trials that count (its own, not those carried over from a skill it superseded) the outcome
   * judge gave (lifecycle.judgedTrials) rather than a reported outcome: a store's read says; absent elsewhere.
   */
  judgedTrials?: number;
  sourceSessions: string[];
  supersededBy: string | null;
  /** Id of the cluster the skill was learned from (null for compiled/imported). */
  clusterId: string | null;
  embedderId: string | null;
  embedding: Float32Array | null;
  /**
   * Recall exemplars: unit vectors of the goals and cues of the sessions it was learned from, packed one after
   * another (length = k * dimensions; same embedder as `embedding`). A request worded like any of them finds
   * the skill even when it is far from the centroid.
   */
  exemplars?: Float32Array | null;
  /**
   * The sessions each exemplar was taken from, in the order of `exemplars` (domain/exemplars.ts, ExemplarSources), so
   * forgetting a session takes out exactly its wordings; null (or absent) when none is known.
   */
  exemplarSources?: (string[] | null)[] | null;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
}

export type ProvenanceKind = 'episodic' | 'semantic' | 'procedural';

export interface Provenance {
  skillId: string;
  sourceKind: ProvenanceKind;
  sourceId: string;
  /** Skill version this parent was attached at. */
  version: string;
  createdAt: string;
}

export interface AuditRecord {
  id?: number;
  namespace: string;
  at: string;
  actor: string;
  action: string;
  subjectKind: string;
  subjectId: string;
  detail: Record<string, unknown>;
}
