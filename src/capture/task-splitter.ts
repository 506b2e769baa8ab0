import type { ToolCall } from '../domain/types.js';
import type { ContentNames, ReaderReport } from './types.js';
import { keepFirst } from '../support/text.js';

/**
 * Turns one transcript's stream of events into tasks. The rule, the same for every streaming format
 * (Claude Code, Codex CLI, OpenAI Agents SDK / Responses items):
 *
 * - the goal of a task is its first real user message (callers drop system, meta and context lines first);
 * - a new task starts at an explicit reset (Claude Code `/clear`), or at a real user message that comes after
 *   the agent gave a final answer (assistant text not followed by a call) to a task in which it called tools;
 *   before the first call, the agent's text is a greeting or a question back, and the next message goes on with
 *   the same request (its words join the goal);
 * - a request with no call (answered without one, or not acted on yet) holds no procedure: the readers leave it
 *   out and say so in a note;
 * - a user message while the agent is still calling tools, or before any answer, belongs to the task in
 *   progress (a correction or an added detail, not a new task);
 * - a user message after an answer that says the answer was wrong ("no, that's wrong", "that's not what I asked")
 *   belongs to the task it answered, too: the task is kept with the user's words (`rejection`), so the judge does
 *   not take the answer for a success, and the work the agent does after it is the same task's.
 */
export interface Task {
  goal: string | null;
  calls: ToolCall[];
  pending: { id: string | null; call: ToolCall }[];
  finalAnswer: string | null;
  startedAt: string | null;
  endedAt: string | null;
  /** Where the task starts (for error messages and the record list). */
  line: number;
  /** The user's words rejecting an answer of this task, and how many calls the task had then; null when none did. */
  rejection: { said: string; afterCalls: number } | null;
}

export class TaskSplitter {
  readonly tasks: Task[] = [];
  private answered = false;
  private cleared = false;

  get current(): Task {
    if (!this.tasks.length) this.start(1, null);
    return this.tasks[this.tasks.length - 1];
  }

  private start(line: number, at: string | null): Task {
    const t: Task = {
      goal: null,
      calls: [],
      pending: [],
      finalAnswer: null,
      startedAt: at,
      endedAt: at,
      line,
      rejection: null,
    };
    this.tasks.push(t);
    this.answered = false;
    this.cleared = false;
    return t;
  }

  /** An explicit reset (`/clear`): the next user message starts a new task. */
  reset(): void {
    const t = this.tasks[this.tasks.length - 1];
    if (t && (t.goal !== null || t.calls.length)) this.cleared = true;
  }

  /**
   * A request. After an answer it starts a new task, unless the task so far has no call: then the agent's text
   * was a greeting or a question back ("Which order?"), and the request goes on: its words join the goal, so a
   * task is not named by the answer to that question ("#W2378156").
   */
  user(text: string, line: number, at: string | null): void {
    let t = this.tasks[this.tasks.length - 1];
    if (t && t.goal !== null && !this.cleared && this.answered && t.calls.length > 0 && rejectsAnswer(text)) {
      t.rejection = { said: text.trim(), afterCalls: t.calls.length };
      this.answered = false;
      this.touch(at);
      return;
    }
    if (!t || (t.goal !== null && (this.cleared || (this.answered && t.calls.length > 0)))) t = this.start(line, at);
    if (t.goal === null) {
      t.goal = text;
      t.line = line;
      t.startedAt = t.startedAt ?? at;
    } else if (t.calls.length === 0) t.goal = joinRequest(t.goal, text);
    this.answered = false;
    this.touch(at);
  }

  /**
   * Whether a task is left out: a request the agent answered without a call ("Great, thanks!", a question it
   * answered from what it knew) or has not acted on yet (it asked a question back, and the log ends there). It
   * holds no procedure to learn; a later copy of the log in which the agent went on to call tools stores it then.
   */
  isChatter(t: Task): boolean {
    return t.goal !== null && t.calls.length === 0;
  }

  /**
   * Whether the log ends in the middle of task t: it is the last task, and no answer came after its last call (the
   * agent was still working when the log was written, or stopped without a word).
   */
  unfinished(t: Task): boolean {
    return t === this.tasks[this.tasks.length - 1] && t.calls.length > 0 && t.finalAnswer === null;
  }

  /**
   * The id of task t (the i-th of the log): the log's own id (`<id>`, `<id>#2`...), or for a log without one, one of
   * its two content names (`content()`: by the log up to its request and up to its end), the start name while the
   * log ends in the middle of it. `contentNames` carries both, for ingest to find an earlier copy of the task.
   */
  taskId(
    t: Task,
    i: number,
    own: string | null,
    content: () => ContentNames,
  ): { id: string; contentNames?: ContentNames } {
    const named = (base: string) => (i === 0 ? base : `${base}#${i + 1}`);
    if (own !== null) return { id: named(own) };
    const c = content();
    const contentNames = { start: named(c.start), end: named(c.end) };
    return { id: this.unfinished(t) ? contentNames.start : contentNames.end, contentNames };
  }

  /**
   * When task t ended, as its session stores it: null while the log ends in the middle of it (a later copy that
   * finishes it grows the stored session), else its last event's time, or `now` for a log without times.
   */
  endedAt(t: Task, now: string): string | null {
    return this.unfinished(t) ? null : (t.endedAt ?? now);
  }

  /** The note for the requests left out, or null when there were none. */
  chatterNote(): ReaderReport | null {
    const left = this.tasks.filter((t) => this.isChatter(t));
    if (!left.length) return null;
    const quoted = left
      .slice(0, 3)
      .map((t) => JSON.stringify((t.goal ?? '').slice(0, 60)))
      .join(', ');
    return {
      line: left[0].line,
      path: '',
      reason: `${left.length} request(s) without a tool call (answered without one, or not acted on yet) were not stored, as they hold no procedure to learn (${quoted}${left.length > 3 ? ', ...' : ''})`,
      note: true,
      requestsLeftOut: left.length,
    };
  }

  call(id: string | null, call: ToolCall, pending: boolean, at: string | null): void {
    const t = this.current;
    call.position = t.calls.length;
    t.calls.push(call);
    if (pending) t.pending.push({ id, call });
    t.finalAnswer = null;
    this.answered = false;
    this.touch(at);
  }

  assistantText(text: string, at: string | null): void {
    const t = this.current;
    if (!text.trim()) return;
    t.finalAnswer = text.trim();
    // Text with no call after it is an answer even when a call never got its result (a broken log must
    // not glue the next task onto this one).
    this.answered = true;
    this.touch(at);
  }

  /** A result arrived: the agent has not answered yet. */
  resulted(at: string | null): void {
    this.current.finalAnswer = null;
    this.answered = false;
    this.touch(at);
  }

  private touch(at: string | null): void {
    const t = this.tasks[this.tasks.length - 1];
    if (t && at) {
      t.startedAt = t.startedAt ?? at;
      t.endedAt = at;
    }
  }
}

/**
 * The opening of a message that says the agent's answer was wrong: "no, that's wrong", "that is not what I asked",
 * "wrong file", "it still fails", "that didn't work", "undo that". Read in its first sentence only, and only right
 * after an answer: a new request that mentions something broken ("the login doesn't work, fix it") is not one.
 */
const REJECTION =
  /^(?:(?:no|nope|nah|hmm|wait|ugh)\b[\s,.!:;-]*)?(?:(?:that|this|it)(?:'s|’s| is| was)\s+(?:(?:all|just|completely|totally|still)\s+)?(?:wrong|not right|incorrect|not what i (?:asked|wanted|meant))|wrong\b|incorrect\b|not what i (?:asked|wanted|meant)|(?:that|this|it)\s+(?:still\s+)?(?:didn't|didn’t|did not|doesn't|doesn’t|does not)\s+work|(?:it|that|this|the \S+)\s+still\s+(?:fails|failing|is failing|breaks|is broken|is red)|(?:undo|revert)\s+(?:that|this|it|your|the)\b)/i;

/** Whether a message after an answer says that answer was wrong (REJECTION). */
export function rejectsAnswer(text: string): boolean {
  const first = text.trim().split(/(?<=[.!?])\s/)[0] ?? '';
  return REJECTION.test(first);
}

/**
 * A task's labels with the user's rejection of an answer, when there was one (`user_rejected_answer`: the words;
 * `user_rejected_after_calls`: the calls made before it), for the judge and for people reading the session.
 */
export function rejectionLabels(t: Pick<Task, 'rejection'>): Record<string, unknown> {
  return t.rejection
    ? { user_rejected_answer: keepFirst(t.rejection.said, 300), user_rejected_after_calls: t.rejection.afterCalls }
    : {};
}

/** Words that only greet, thank or agree: no part of what was asked. */
const PLEASANTRY =
  /^(?:\s*(?:hi|hello|hey|thanks|thank you|thx|great|ok|okay|cool|perfect|awesome|good (?:morning|afternoon|evening)|yes|yeah|yep|sure|please|no problem|there|all|everyone|again|so much|a lot|very much)\b[\s!.,:;)-]*)+$/i;

/**
 * Two messages of one request, before the agent called anything: both, unless one only greets or thanks or the
 * second says again what the first said.
 */
function joinRequest(goal: string, text: string): string {
  if (PLEASANTRY.test(goal)) return text;
  // A log that records one message twice (Codex: as an item and as an event) asks it once.
  const words = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (PLEASANTRY.test(text) || words(goal).includes(words(text))) return goal;
  return `${goal}\n${text}`;
}
