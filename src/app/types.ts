import type { IngestProblem } from '../capture/parse-file.js';
import type { DetectedFormat, IngestFormat, RecordInfo } from '../capture/types.js';
import type { OutcomeJudge } from '../capture/judge.js';
import type { Outcome, OutcomeSource } from '../domain/types.js';
import type { RecalledSkill } from '../pipeline/recall.js';

/** How `ingestText` reads a log: its name in problems, the format (default auto), the namespace, the judge. */
export interface IngestTextOptions {
  name?: string;
  format?: IngestFormat;
  namespace?: string;
  judge?: 'rule' | 'llm' | 'off' | OutcomeJudge;
  /**
   * Whether the log is whole (default): its last task of each session is complete too. False for a transcript read
   * while its agent works (`ingest --hook` after each reply): only a task a later one of its session followed is
   * complete. A complete task's judged outcome is a trial of the skills recalled for it (lifecycle.judgedTrials).
   * Read while its agent works, a task the transcript ends in the middle of (a call not answered yet) is not judged:
   * it stays open, and no pass counts it, until a copy that ends it comes.
   */
  finished?: boolean;
}

export interface IngestResult {
  file: string;
  format: string;
  inserted: number;
  /**
   * Stored sessions that this file holds further on (more calls, or results that had not come back), grown in
   * place: a log sent while its agent was still working, and again later. Absent when none grew.
   */
  grown?: number;
  skipped: number;
  problems: IngestProblem[];
  /** Whether the format was detected (`auto`) or given. */
  detected?: boolean;
  /** Sessions per detected format (`format` is `mixed` when there are several). */
  formats?: Partial<Record<DetectedFormat, number>>;
  /** Where each session was read (line, JSON path) and as what. */
  records?: RecordInfo[];
  /** What the outcome judge decided for the sessions whose source gave no outcome (null: not judged). */
  judged?: { judge: string; judged: number; success: number; failure: number; unknown: number } | null;
  /** Not errors (the exit code stays 0): lines of kinds this version does not read, parts a log did not record. */
  notes?: IngestProblem[];
  /** Lines of a known format read past, by kind (Claude Code `progress`, `file-history-snapshot`...). */
  unread?: Record<string, number>;
  /**
   * Where the read began, when a transcript a hook reads as it grows was read from its last task on
   * (`memory.ingestTranscript`): that task's first line and byte offset. Absent when the file was read whole.
   * `records`, `notes` and `problems` are then of the lines read; the tasks before it count as `skipped` (present).
   */
  readFrom?: { line: number; byte: number };
}

export interface ExportResult {
  dir: string;
  /** `files`: for an imported skill, how many files of its folder were written (byte for byte). */
  written: { name: string; path: string; files?: number }[];
  skipped: { name: string; reason: string }[];
  /**
   * Folders an earlier export wrote for a skill that has another name now (`now`: renamed) or is no longer live
   * (`now` null: superseded, in an export of every skill): `removed` when their SKILL.md was a text this memory
   * wrote for that skill, else left as they are (edited since).
   */
  stale: { name: string; path: string; now: string | null; removed: boolean }[];
  /**
   * Imported skills written as they came whose SKILL.md does not validate (the agentskills.io rules skill loaders
   * apply): the folder is someone else's and is not rewritten, so an agent may refuse it. Present when any.
   */
  warnings?: { name: string; reason: string }[];
}

export interface ImportResult {
  /** `version` and `files` (how many were kept); `replaces` when `force` stored a new version over an import. */
  imported: { name: string; format: string; version?: string; files?: number; replaces?: string }[];
  /** `refused`: a skill (or the whole folder) that was not imported and should have been: the exit code is 1. */
  skipped: { path: string; reason: string; refused?: boolean }[];
  /** Findings in imported files kept as written: secret-like values, instruction-like text, validation errors. */
  warnings?: { path: string; line?: number; reason: string }[];
}

/** One tool call as a caller records it. */
/** A skill recalled for a session (`memory.sessions.recalled`): its name, how near it was, when it was served. */
export interface SessionRecall {
  skill: string;
  similarity: number;
  at: string;
}

/** What `memory.recall` takes besides the goal. */
export interface RecallOptions {
  /** Skills served at most (default `recall.topK`). */
  topK?: number;
  namespace?: string;
  /** The session the skills are recalled for (recorded, still running): its outcome becomes their trial. */
  sessionId?: string;
  /**
   * The agent's session the skills are recalled for when it is not recorded here yet: its transcript is ingested
   * later (`recall --hook` gives Claude Code's `claude-code:<session_id>`). The recall is kept under this id, and once
   * the transcript's tasks (`ID`, `ID#2`...) are stored it goes to the task it served, whose reported outcome
   * becomes the served skills' trial. Ignored when `sessionId` is given.
   */
  agentSession?: string;
  /** false: look without leaving a trace (no recall row, last use untouched). */
  record?: boolean;
  /**
   * The tools the agent has: only skills whose main path (`toolSequence`) calls none other are served, so an agent
   * sharing a memory with others is never handed steps it cannot take. Omitted: every skill.
   */
  tools?: readonly string[];
}

export interface RecordedCall {
  tool: string;
  args?: Record<string, unknown>;
  result?: unknown;
  ok?: boolean;
  error?: string | null;
  durationMs?: number | null;
}

/** A live recording of one session: record each call as it happens, then end it with an outcome. */
export interface SessionRecorder {
  readonly id: string;
  /** Recall for this session: the skills served become trials when the session ends with an outcome. */
  recall(goal?: string, opts?: Pick<RecallOptions, 'topK' | 'tools'>): Promise<RecalledSkill[]>;
  call(call: RecordedCall): Promise<void>;
  /**
   * Ends the session; with a reported success/failure outcome, each skill recalled for it gets a trial.
   * `source: 'judged'` stores an outcome the judge decided: a trial the judge gives (lifecycle.judgedTrials, else
   * none), which the session's reported outcome replaces later.
   */
  end(outcome: Outcome, reward?: number | null, opts?: { source?: OutcomeSource }): Promise<void>;
}

/**
 * What `memory.sessions.forgetBefore` did (or, in a dry run, would do): the sessions forgotten, oldest first, each
 * with the time it was judged old by (when it ended; for one still open, its latest activity: its last call, else its
 * start), and the sessions kept because their stored time reads as no date. In a dry run `ref` and `calls` are null
 * and `skills` empty.
 */
export interface RetentionResult {
  before: string;
  dryRun: boolean;
  forgotten: { id: string; at: string; ref: string | null; calls: number | null; skills: string[] }[];
  undated: string[];
}
