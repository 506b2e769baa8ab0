// The shapes the dashboard reads from /api (see /api/openapi.json). Kept here so the browser code has no
// dependency on server modules.

export type Status = 'probationary' | 'active' | 'retired';

export interface Skill {
  id: string;
  name: string;
  description: string;
  status: Status;
  enabled: boolean;
  version: string;
  kind: 'playbook' | 'heuristic';
  corpus: 'internal' | 'external';
  toolsRequired: string[];
  toolSequence: string[];
  successCount: number;
  attemptCount: number;
  support: number;
  eta: number;
  utility: number;
  /** Its trials since it was learned that count, passed, and how many of them the outcome judge gave. */
  trialsAttempted: number;
  trialsPassed: number;
  judgedTrials: number;
  sourceSessions: string[];
  supersededBy: string | null;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
  skillMd?: string;
}

/** What `DELETE /api/skills/{name}` answers: the skill forgotten. */
export interface ForgottenSkill {
  forgotten: { id: string; name: string };
}

/** A skill in a list (`/api/skills?summary=true`): how many source sessions, not their ids. */
export type SkillSummary = Omit<Skill, 'sourceSessions' | 'skillMd'> & { sourceSessionCount: number };

export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

export interface SessionSummary {
  id: string;
  goal: string;
  outcome: 'success' | 'failure' | 'unknown';
  /** `judged` when the outcome judge gave the outcome, not the log; null while the session is open with none given. */
  outcomeSource: 'reported' | 'judged' | null;
  reward: number | null;
  agentId: string | null;
  source: string | null;
  startedAt: string;
  endedAt: string | null;
  callCount: number;
  tools: string[];
}

export interface ToolCall {
  position: number;
  tool: string;
  args: Record<string, unknown>;
  result: string;
  ok: boolean;
  error: string | null;
  durationMs: number | null;
  at: string | null;
}

export interface Session extends SessionSummary {
  labels: Record<string, unknown> | null;
  calls: ToolCall[];
}

export interface Explanation {
  skill: Pick<
    Skill,
    | 'id'
    | 'name'
    | 'description'
    | 'version'
    | 'kind'
    | 'corpus'
    | 'status'
    | 'enabled'
    | 'eta'
    | 'utility'
    | 'successCount'
    | 'attemptCount'
    | 'support'
    | 'createdAt'
    | 'lastUsedAt'
  > & {
    trialsAttempted: number;
    trialsPassed: number;
  };
  parents: {
    sessions: { id: string; goal: string; outcome: string; calls: number; tools: string[]; addedInVersion: string }[];
    /** All stored parent sessions; `sessions` holds the first of them when the page asked for fewer. */
    sessionCount: number;
    facts: { id: string; text: string }[];
    missing: string[];
    /** Sources reported failed after it was learned from them: no longer its sources. */
    revoked: number;
    /** Those of them a pass named (an earlier release's pass counted them only). */
    revokedSessions?: string[];
  };
  versions: { version: string; reason: string; createdAt: string; toolSequence: string[]; sameProcedure: boolean }[];
  /** Whether recall can serve it, and if not, why and what brings it back. */
  standing?: { recallable: boolean; reason: string | null };
  /** A skill a person edited (skills edit): who, when, and what its sessions suggest since. */
  edited?: { by: string; at: string; suggests?: string[] };
  supersedeChain: { id: string; name: string; version: string; status: string }[];
  /** A skill superseded because the agent now calls a tool of it by another name: the tools renamed. */
  renamedTools?: { from: string; to: string }[];
  /** `judged`: a trial the outcome judge gave (lifecycle.judgedTrials), until the task's reported outcome replaces it. */
  track: { at: string; eta: number; utility: number | null; status: string; signal: string; judged?: true }[];
}

/** Sessions that ran the same steps but were worded too far apart to group (GET /api/look-alike). */
export interface LookAlike {
  sessions: string[];
  goals: string[];
  steps: { tool: string; command?: string }[];
}

export interface CompileResult {
  dryRun: boolean;
  action: 'add' | 'update' | 'reinforce' | 'supersede' | 'skip';
  reason: string | null;
  skill: {
    id: string;
    name: string;
    version: string;
    description: string;
    toolsRequired: string[];
    toolSequence: string[];
    kind: string;
  } | null;
  skillMd: string | null;
  parents: { sessions: { id: string; goal: string; outcome: string }[]; facts: { id: string; text: string }[] };
  duplicateOf: { id: string; name: string } | null;
  cluster: string | null;
  /** Sessions not used, with why (one still open counts for nothing until it ends). */
  leftOut: { id: string; reason: string }[];
}

export interface RecalledSkill {
  id: string;
  name: string;
  similarity: number;
  description: string;
  status: Status;
  eta: number;
  toolsRequired: string[];
  toolSequence: string[];
  /** Paths taken when a lookup's result shows a value, or when the agent can call a tool (the recall contract's `branches`). */
  branches: { when: { tool: string; path: string; in: string[]; available?: true }; toolSequence: string[] }[];
  body: string;
}

export interface RecallAnswer {
  skills: RecalledSkill[];
  context: string;
  tools: string[];
}

export interface Stats {
  namespace: string;
  skills: {
    live: number;
    superseded: number;
    enabled: number;
    byStatus: Record<Status, number>;
    byCorpus: Record<string, number>;
    meanEta: number | null;
  };
  sessions: { total: number };
  lastEventId: number;
  backends: { embedder: string; distiller: string };
  synthesis: { minOccurrences: number };
}

export interface SkillEvent {
  id: number;
  type: string;
  at: string;
  skillId: string | null;
  payload: Record<string, unknown>;
}

/** `/api/skills/{name}/diff`: what changed in a skill's SKILL.md between two versions. */
export interface SkillDiff {
  name: string;
  from: { version: string; reason: string; createdAt: string; sameProcedure: boolean } | null;
  to: { version: string; reason: string; createdAt: string; sameProcedure: boolean };
  hunks: {
    oldStart: number;
    oldLines: number;
    newStart: number;
    newLines: number;
    lines: { op: ' ' | '-' | '+'; text: string }[];
  }[];
}

/** A problem or note of an ingested log (`POST /api/ingest`). */
export interface LogProblem {
  file: string;
  line: number;
  path?: string;
  reason: string;
}

/** What `POST /api/ingest?dryRun=true` says would be stored. */
export interface LogPreview {
  format: string;
  sessions: {
    id: string;
    line: number;
    goal: string;
    calls: number;
    tools: string[];
    failedCalls: number;
    /** What storing would do with it (POST /api/ingest?dryRun=true reads the memory). */
    stored?: 'new' | 'grow' | 'present' | 'conflict';
  }[];
  calls: number;
  problems: LogProblem[];
  notes: LogProblem[];
}

/** What `POST /api/ingest` stored. */
/** `POST /api/synthesize`: what a learning pass wrote (the fields the dashboard reads). */
export interface SynthesisDone {
  created: { name: string; version: string }[];
  updated: { name: string; version: string }[];
  reinforced: { name: string }[];
  skipped: { cluster: string; reason: string }[];
  stats: { newSessions: number; clusters: number };
}

export interface LogIngested {
  format: string;
  inserted: number;
  /** Stored sessions grown by a copy further on (a task stored before it ended). */
  grown?: number;
  skipped: number;
  problems: LogProblem[];
  notes?: LogProblem[];
}

/** `PUT /api/skills/{name}/SKILL.md` and `POST .../revert`: what an edit did. */
export interface SkillEdit {
  skill: Skill;
  changed: boolean;
  why?: 'empty' | 'unchanged' | 'not-edited';
  warnings: string[];
  redacted: string[];
}
