import type { Session } from '../domain/types.js';

/** The capture formats `ingest` reads; `auto` detects one per record. */
export const DETECTED_FORMATS = [
  'jsonl',
  'openai',
  'anthropic',
  'otel',
  'tau',
  'claude-code',
  'codex',
  'gemini',
  'openai-agents',
  'langchain',
  'ai-sdk',
  'pydantic-ai',
  'autogen',
  'langchain-messages',
] as const;
export type DetectedFormat = (typeof DETECTED_FORMATS)[number];
export type IngestFormat = 'auto' | DetectedFormat;
export const INGEST_FORMATS: readonly IngestFormat[] = ['auto', ...DETECTED_FORMATS];

export function isIngestFormat(value: unknown): value is IngestFormat {
  return typeof value === 'string' && (INGEST_FORMATS as readonly string[]).includes(value);
}

/**
 * Where a session's outcome came from: `reported` by the source (a log field, a reward, a person, a
 * pipeline) or `judged` by the outcome judge. Stored in `sessions.outcome_source`.
 */
export type { OutcomeSource } from '../domain/types.js';
import type { OutcomeSource } from '../domain/types.js';

/** A session as capture produces it: the domain session plus where its outcome came from. */
export type CapturedSession = Session & { outcomeSource?: OutcomeSource };

/** One session out of a parser, with what the judge needs that the session does not keep. */
export interface ParsedSession {
  session: CapturedSession;
  /** The agent's last text answer after its last tool call, when the source has one. */
  finalAnswer: string | null;
  /**
   * For a task named by its content (its log has no id of its own): its name by the log up to its request
   * (`start`) and up to its end (`end`). A task the log ends in the middle of (no answer after its last call) is
   * stored under `start`, so that a later copy of the log, with the task further on, grows that session instead
   * of storing another; any other task under `end`.
   */
  contentNames?: ContentNames;
  /**
   * The log ends in the middle of this task (no answer after its last call: the agent was still working when the
   * log was written, or it stopped without a word). Read while the agent works (`finished: false`, `ingest --hook`),
   * such a task has not ended: it is not judged, and stays open (domain/open-session.ts) until a copy ends it.
   */
  unfinished?: true;
}

/** The two names of a task named by its content (ParsedSession.contentNames). */
export interface ContentNames {
  start: string;
  end: string;
}

/** What one record of a file turned into, so that auto-detection can say what it chose. */
export interface RecordInfo {
  /** 1-based line of the record (for a whole-file JSON document: 1). */
  line: number;
  /** JSON path of the record inside the line or document ('' for the whole line). */
  path: string;
  format: DetectedFormat;
  sessionId: string;
}

/**
 * A live session to open: its goal, and `cue`, the user's own words when `goal` is something else (a ticket
 * title, a task statement).
 */
export interface StartSessionOptions {
  goal: string;
  cue?: string;
  id?: string;
  agentId?: string;
  source?: string;
  namespace?: string;
}

/**
 * What a reader reports about a place in a log: a problem (the record or part was rejected; the exit code is 1),
 * or with `note`, something the person should know that is not an error (it goes with the file's notes).
 */
export interface ReaderReport {
  line: number;
  path: string;
  reason: string;
  note?: boolean;
  /** On a note: how many requests it says were left out (a file of only those is no error). */
  requestsLeftOut?: number;
}
