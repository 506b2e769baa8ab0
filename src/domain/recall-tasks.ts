import { redactCapture } from './redact.js';

/*
 * Which task of an agent's session a recall served. A hook recalls before each prompt under the agent's session id
 * (Claude Code's `session_id`), before the transcript that later holds the prompt is read; the transcript is then
 * split into tasks stored as `ID`, `ID#2`, `ID#3`... and each recall is given to the task it served, so that the
 * task's outcome credits exactly the skills served for it.
 */

/** A recall as the store keeps it: its row id, the session it is held under, its goal and time. */
export interface HeldRecall {
  id: number;
  sessionId: string | null;
  goal: string;
  at: string;
}

/** One task of the session, in the order the transcript has them (the first one's id is the base id, as a rule). */
export interface SessionTask {
  id: string;
  goal: string;
  startedAt: string | null;
}

/** The recall goals and task goals are compared as far as both are stored (a recall's goal is kept to 2000). */
const COMPARED_CHARS = 1900;

/** A request as both sides store it: redacted (a recall's goal is, a task's is unless goals are kept), spaces as one. */
function requestKey(text: string): string {
  return redactCapture(text).replace(/\s+/g, ' ').trim().slice(0, COMPARED_CHARS);
}

/**
 * Whether a task was asked for by this request: its goal is the request, or begins or ends with it (a task whose
 * first message was a greeting or a question back takes the next message's words into its goal).
 */
function askedBy(taskGoal: string, request: string): boolean {
  if (!request) return false;
  if (taskGoal === request) return true;
  if (request.length === COMPARED_CHARS || taskGoal.length < request.length) return false;
  return taskGoal.startsWith(`${request} `) || taskGoal.endsWith(` ${request}`);
}

const time = (at: string | null): number => (at ? Date.parse(at) : Number.NaN);

/**
 * Where each recall belongs among a session's tasks: the task whose request is the recall's goal (of several, the
 * one that started nearest the recall), else the task that was running when it was made (the last one started
 * at or before it), else the agent's session id itself (`base`: the first task's, unless that one was not stored).
 * Only the recalls that must move are returned: the same tasks read again (a transcript ingested after every
 * reply) move nothing twice.
 */
export function assignRecallsToTasks(
  recalls: readonly HeldRecall[],
  tasks: readonly SessionTask[],
  base: string,
): { recallId: number; from: string | null; to: string }[] {
  if (tasks.length === 0) return [];
  const keyed = tasks.map((t) => ({ ...t, key: requestKey(t.goal), start: time(t.startedAt) }));
  const moves: { recallId: number; from: string | null; to: string }[] = [];
  for (const r of recalls) {
    const at = time(r.at);
    const request = requestKey(r.goal);
    const asked = keyed.filter((t) => askedBy(t.key, request));
    let to: string;
    if (asked.length) {
      const distance = (t: (typeof keyed)[number]) =>
        Number.isFinite(at) && Number.isFinite(t.start) ? Math.abs(t.start - at) : Number.POSITIVE_INFINITY;
      to = asked.reduce((best, t) => (distance(t) < distance(best) ? t : best)).id;
    } else {
      const running = Number.isFinite(at) ? keyed.filter((t) => Number.isFinite(t.start) && t.start <= at).pop() : null;
      to = running ? running.id : base;
    }
    if (to !== r.sessionId) moves.push({ recallId: r.id, from: r.sessionId, to });
  }
  return moves;
}

/** The id of the session a task of a split transcript belongs to: `ID#3` is the third task of `ID`. */
export function taskBase(id: string): string {
  return id.replace(/#\d+$/, '');
}
