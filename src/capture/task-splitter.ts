import type { ToolCall } from '../domain/types.js';

/**
 * Turns one transcript's stream of events into tasks. The rule, the same for every streaming format
 * (Claude Code, Codex CLI, OpenAI Agents SDK / Responses items):
 *
 * - the goal of a task is its first real user message (callers drop system, meta and context lines first);
 * - a new task starts at an explicit reset (Claude Code `/clear`), or at a real user message that comes after
 *   the agent gave a final answer (assistant text not followed by a call);
 * - a user message while the agent is still calling tools, or before any answer, belongs to the task in
 *   progress (a correction or an added detail, not a new task).
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
}

export class TaskSplitter {
  readonly tasks: Task[] = [];
  private answered = false;

  get current(): Task {
    if (!this.tasks.length) this.start(1, null);
    return this.tasks[this.tasks.length - 1];
  }

  private start(line: number, at: string | null): Task {
    const t: Task = { goal: null, calls: [], pending: [], finalAnswer: null, startedAt: at, endedAt: at, line };
    this.tasks.push(t);
    this.answered = false;
    return t;
  }

  /** An explicit reset (`/clear`): the next user message starts a new task. */
  reset(): void {
    const t = this.tasks[this.tasks.length - 1];
    if (t && (t.goal !== null || t.calls.length)) this.answered = true;
  }

  user(text: string, line: number, at: string | null): void {
    let t = this.tasks[this.tasks.length - 1];
    if (!t || (this.answered && t.goal !== null)) t = this.start(line, at);
    if (t.goal === null) {
      t.goal = text;
      t.line = line;
      t.startedAt = t.startedAt ?? at;
    }
    this.answered = false;
    this.touch(at);
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
