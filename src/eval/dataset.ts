/**
 * Reads evaluation files (the JSONL interchange format, or OpenAI message logs) into sessions for the
 * engine, with their labels taken aside for scoring. The sessions handed to the engine carry no labels.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { parseCaptureText, type IngestProblem } from '../capture/parse-file.js';
import type { Session } from '../domain/types.js';
import { splitOf } from './split.js';
import { InputError } from '../errors/input-error.js';

export type SplitName = 'tune' | 'test';

export interface EvalSession {
  /** What the engine sees: `labels` is always null. */
  session: Session;
  /** The task kind read through the label path (scoring only), null when absent. */
  kind: string | null;
  /** `meta.first_user_message` when present: what the agent actually saw first (a second query set). */
  firstUserMessage: string | null;
  /** The deterministic tune/test half of the record (src/eval/split.ts). */
  split: SplitName;
}

export interface LoadedFile {
  file: string;
  sessions: EvalSession[];
  problems: IngestProblem[];
}

/**
 * Reads a dotted label path such as `meta.family` from a record. `meta.*` reads the record's meta object;
 * `session_id`, `source`, `agent_id` and `goal` read those top-level fields. Non-string values are
 * stringified; missing values give null.
 */
export function readLabel(
  session: Session,
  meta: Record<string, unknown> | null | undefined,
  path: string,
): string | null {
  const parts = path.split('.').filter(Boolean);
  if (parts.length === 0) return null;
  const top: Record<string, unknown> = {
    meta: meta ?? null,
    session_id: session.id,
    source: session.source,
    agent_id: session.agentId,
    goal: session.goal,
  };
  let value: unknown = top;
  for (const p of parts) {
    if (value == null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[p];
  }
  if (value == null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Checks a label path before a run, so that a typo fails loudly instead of scoring zero. */
export function validateLabelPath(path: string): void {
  const parts = path.split('.').filter(Boolean);
  if (
    parts.length === 0 ||
    !['meta', 'session_id', 'source', 'agent_id', 'goal'].includes(parts[0]) ||
    (parts[0] === 'meta' && parts.length < 2)
  ) {
    throw new InputError(
      `--label must be a path such as meta.family (meta.<key>[.<key>...], or source / agent_id), not "${path}"`,
    );
  }
}

/** Parses evaluation records from text; labels are read for scoring and stripped from the sessions. */
export function parseEvalText(text: string, opts: { file: string; label: string; namespace?: string }): LoadedFile {
  const config = loadConfig({});
  const parsed = parseCaptureText(text, {
    file: opts.file,
    namespace: opts.namespace ?? 'default',
    format: 'auto',
    maxRecordBytes: config.capture.maxRecordBytes,
    resultChars: config.capture.resultChars,
    maxCallsPerSession: config.capture.maxCallsPerSession,
    now: new Date(0).toISOString(),
  });
  const seen = new Set<string>();
  const sessions: EvalSession[] = [];
  for (const s of parsed.sessions) {
    if (seen.has(s.id)) continue; // the first record of an id wins, as on ingest
    seen.add(s.id);
    const meta = s.labels ?? null;
    const fum =
      meta && typeof meta.first_user_message === 'string' && meta.first_user_message.trim()
        ? meta.first_user_message
        : null;
    sessions.push({
      session: { ...s, labels: null },
      kind: readLabel(s, meta, opts.label),
      firstUserMessage: fum,
      split: splitOf({ session_id: s.id, meta }),
    });
  }
  return { file: opts.file, sessions, problems: parsed.problems };
}

export function loadEvalFile(file: string, opts: { label: string; namespace?: string }): LoadedFile {
  return parseEvalText(readFileSync(file, 'utf8'), { file, ...opts });
}

/** Keeps one half of a file (all trials of one task stay on one side), or everything. */
export function selectSplit(sessions: readonly EvalSession[], split: SplitName | 'all'): EvalSession[] {
  return split === 'all' ? [...sessions] : sessions.filter((s) => s.split === split);
}

export function otherSplit(split: SplitName): SplitName {
  return split === 'tune' ? 'test' : 'tune';
}
