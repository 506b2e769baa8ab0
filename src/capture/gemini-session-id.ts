/**
 * The `sessionId` a Gemini CLI session log starts with (its first JSONL record, or the opening of the one document
 * versions before the JSONL layout wrote), read from the file's first bytes; null when they carry none. Kept apart
 * from gemini.ts, with no imports, for the recall hook's short path.
 *
 * The CLI fills its hooks' `session_id` and its log's `sessionId` from different places (a resumed session keeps
 * the log's; newer versions name a new log after the prompt id), and the log's is the one its tasks are stored under.
 */
export function leadingSessionId(head: string): string | null {
  const first = head.split('\n', 1)[0]!.trim();
  try {
    const v: unknown = JSON.parse(first);
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const { sessionId, projectHash } = v as Record<string, unknown>;
      if (typeof sessionId === 'string' && sessionId && typeof projectHash === 'string') return sessionId;
    }
    return null;
  } catch {
    // A document longer than the bytes read: its opening field still names the session.
  }
  const m = /^\s*\{\s*"sessionId"\s*:\s*"((?:[^"\\\n]|\\.){1,200})"\s*,\s*"projectHash"\s*:/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return null;
  }
}

/**
 * The `sessionId` a Gemini CLI log names now, as the ingest of the whole log stores its tasks under (gemini.ts merges
 * the metadata record with every later `$set` and metadata record, the last one winning): the one the last such
 * record in `tail` sets, else the one the log opens with (`head`, leadingSessionId); null when the log opens with
 * none (not a Gemini CLI log). `tail` is the log's last bytes (`whole`: they start at its first byte; else the
 * first, cut line is not read): a `$set` is a short line, and the latest one that sets the id is the one that
 * counts. One too far back to be in them, or on a line longer than them (a `$set` of the whole message list), is
 * not seen: the id the log opens with stands.
 */
export function currentSessionId(head: string, tail: string, whole: boolean): string | null {
  const opened = leadingSessionId(head);
  if (opened === null) return null;
  const lines = tail.split('\n');
  for (let i = lines.length - 1; i >= (whole ? 0 : 1); i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{') || !line.includes('"sessionId"')) continue;
    const set = sessionIdSet(line);
    if (set !== null) return set;
  }
  return opened;
}

/** The session id a whole JSONL line of a Gemini CLI log sets (a `$set` of it, a metadata record), else null. */
function sessionIdSet(line: string): string | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const record = v as Record<string, unknown>;
  const update = record.$set;
  if (update && typeof update === 'object' && !Array.isArray(update)) {
    const { sessionId } = update as Record<string, unknown>;
    return typeof sessionId === 'string' && sessionId ? sessionId : null;
  }
  const { sessionId, projectHash } = record;
  return typeof sessionId === 'string' && sessionId && typeof projectHash === 'string' ? sessionId : null;
}
