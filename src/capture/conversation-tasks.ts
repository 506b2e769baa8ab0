import type { Outcome } from '../domain/types.js';
import type { CaptureLimits } from './normalized-jsonl.js';
import { contentId, outcomeOf } from './common.js';
import type { BuiltSession } from './openai-agents.js';
import { rejectionLabels, TaskSplitter } from './task-splitter.js';
import type { ReaderReport } from './types.js';
import { InputError } from '../errors/input-error.js';

/** The fields of an OpenAI or Anthropic conversation record that its sessions take. */
export interface ConversationRecord {
  messages: unknown[];
  id?: string;
  session_id?: string;
  outcome?: Outcome;
  success?: boolean;
  reward?: number;
  agent_id?: string;
  source?: string;
  goal?: string;
}

/**
 * Tasks of one conversation, fed message by message by a reader. With `oneTask` (a record that names its goal,
 * or a benchmark trajectory), every message belongs to one task whose goal is the named one or the first request;
 * otherwise the conversation splits by the rule of task-splitter.ts. Remembers the last message of each task, so
 * that a conversation without an id names each task by the messages up to its end (as sessionsFromItems does).
 */
export class ConversationTasks {
  readonly split = new TaskSplitter();
  private readonly firstMessage: number[] = [];
  private readonly lastMessage: number[] = [];

  constructor(
    private readonly oneTask: boolean,
    goal: string | null,
  ) {
    if (goal) this.split.user(goal, 1, null);
  }

  /** A request (user text); in a one-task conversation only the first one names the goal. */
  user(text: string): void {
    if (!text.trim()) return;
    if (this.oneTask && this.split.tasks.some((t) => t.goal !== null)) return;
    this.split.user(text, 1, null);
  }

  /** Called once a message has been read. */
  read(index: number): void {
    const n = this.split.tasks.length;
    for (let k = this.firstMessage.length; k < n; k++) this.firstMessage[k] = index;
    if (n) this.lastMessage[n - 1] = index;
  }

  /**
   * The sessions: ids from the record (`<id>`, `<id>#2`...), else from the messages up to each task's end; a task
   * answered without a call among tasks with calls is left out with a note. A conversation without a request, or
   * a task with more calls than the limit, rejects the record (thrown).
   */
  sessions(
    conv: ConversationRecord,
    format: 'openai' | 'anthropic',
    o: { namespace: string; now: string; line: number; path: string; maxCalls: number; reports: ReaderReport[] },
  ): BuiltSession[] {
    const { split } = this;
    if (!split.tasks.some((t) => t.goal !== null)) throw new InputError('no user message to take the goal from');
    const over = split.tasks.find((t) => t.calls.length > o.maxCalls);
    if (over)
      throw new InputError(
        `${over.calls.length} calls exceed the limit of ${o.maxCalls} per session (capture.maxCallsPerSession)`,
      );
    const chatter = split.chatterNote();
    if (chatter) o.reports.push({ ...chatter, line: o.line, path: o.path });
    const base = conv.session_id ?? conv.id;
    const out: BuiltSession[] = [];
    const upTo = (i: number, last: number[]) => conv.messages.slice(0, (last[i] ?? conv.messages.length - 1) + 1);
    split.tasks.forEach((t, i) => {
      if (t.goal === null || split.isChatter(t)) return;
      const { id, contentNames } = split.taskId(t, i, base == null ? null : String(base), () => ({
        start: contentId(format, { start: upTo(i, this.firstMessage) }),
        end: contentId(format, upTo(i, this.lastMessage)),
      }));
      out.push({
        line: o.line,
        finalAnswer: t.finalAnswer,
        ...(split.unfinished(t) ? { unfinished: true as const } : {}),
        ...(contentNames ? { contentNames } : {}),
        session: {
          id,
          namespace: o.namespace,
          goal: t.goal,
          outcome: outcomeOf(conv) ?? 'unknown',
          reward: typeof conv.reward === 'number' ? conv.reward : null,
          agentId: conv.agent_id ?? null,
          source: conv.source ?? format,
          startedAt: o.now,
          endedAt: split.endedAt(t, o.now),
          labels: t.rejection ? rejectionLabels(t) : null,
          calls: t.calls,
          outcomeSource: 'reported',
        },
      });
    });
    return out;
  }
}

/** Where a conversation record sits and what its sessions are told: the memory, the limits, the reports sink. */
export interface ConversationOptions {
  namespace: string;
  limits: CaptureLimits;
  now: string;
  line: number;
  path: string;
  reports: ReaderReport[];
  /** One task whatever the conversation holds (a benchmark trajectory). */
  oneTask?: boolean;
}

/**
 * The sessions of one OpenAI or Anthropic conversation record, read by `read`: one per task by the rule of
 * task-splitter.ts, or one for a record that names its `goal` (or with `oneTask`).
 */
export function conversationSessions<C extends ConversationRecord>(
  value: C | unknown[],
  format: 'openai' | 'anthropic',
  read: (conv: C, limits: CaptureLimits, tasks: ConversationTasks) => void,
  o: ConversationOptions,
): BuiltSession[] {
  const conv = (Array.isArray(value) ? { messages: value } : value) as C;
  const goal = typeof conv.goal === 'string' && conv.goal.trim() ? conv.goal : null;
  const tasks = new ConversationTasks(o.oneTask === true || goal !== null, goal);
  read(conv, o.limits, tasks);
  return tasks.sessions(conv, format, { ...o, maxCalls: o.limits.maxCallsPerSession });
}
