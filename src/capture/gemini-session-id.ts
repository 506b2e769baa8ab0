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
