import type { Memory } from '../../app/memory.js';
import type { SessionRecorder } from '../../app/types.js';
import type { Outcome } from '../../domain/types.js';
import { InputError, SessionStateError } from '../../errors/index.js';

export interface RecordedCall {
  sessionId?: string;
  goal?: string;
  agentId?: string;
  tool: string;
  args?: Record<string, unknown>;
  result?: unknown;
  ok?: boolean;
  error?: string;
  durationMs?: number;
}

/** Open recorders kept at most; an evicted one is re-opened from the store on its next call. */
const MAX_OPEN = 1000;

/**
 * The sessions agents are recording over MCP, by id. Calls arrive one request at a time, possibly on
 * different connections (or after a restart): a session is re-opened from the store when it is not open here.
 */
export class LiveSessions {
  private readonly open = new Map<string, Promise<SessionRecorder>>();
  /** The last operation of each session with one still running (see inOrder). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly memory: Memory) {}

  /**
   * Stores one call; the first call of a new session must carry its goal. Returns the session id. The calls and the
   * end of one session are stored in the order they arrived, even when a client sends them without waiting.
   */
  record(call: RecordedCall): Promise<string> {
    return this.inOrder(call.sessionId, async () => {
      const recorder = await this.recorder(call);
      await recorder.call({
        tool: call.tool,
        args: call.args,
        result: call.result,
        ok: call.ok,
        error: call.error,
        durationMs: call.durationMs,
      });
      return recorder.id;
    });
  }

  /**
   * The recorder of session `sessionId`, opened for `goal` when it is neither open nor stored (a recall at the start
   * of a task, before any call); a stored one that ended is refused. Its calls are then recorded under the same id.
   */
  begin(sessionId: string, goal: string, agentId?: string): Promise<SessionRecorder> {
    return this.inOrder(sessionId, () => this.recorder({ sessionId, goal, agentId, tool: '' }));
  }

  /**
   * Ends a session with its outcome: each skill recalled for it gets a trial (success or failure). Once: the
   * same outcome again is a no-op, another one is refused (see `Memory.reportOutcome`).
   */
  end(sessionId: string, outcome: Outcome, reward?: number): Promise<void> {
    return this.inOrder(sessionId, async () => {
      const pending = this.open.get(sessionId);
      if (pending) {
        this.open.delete(sessionId);
        await (await pending).end(outcome, reward ?? null);
        return;
      }
      await this.memory.reportOutcome(sessionId, outcome, { reward });
    });
  }

  /** Runs `op` after every operation on the same session that arrived before it, whatever their outcome. */
  private inOrder<T>(sessionId: string | undefined, op: () => Promise<T>): Promise<T> {
    if (!sessionId) return op();
    const next = (this.queues.get(sessionId) ?? Promise.resolve()).then(op, op);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(sessionId, tail);
    void tail.then(() => {
      if (this.queues.get(sessionId) === tail) this.queues.delete(sessionId);
    });
    return next;
  }

  /** Forgets an open recorder (its session was forgotten): a later call starts afresh, with its goal. */
  drop(sessionId: string): void {
    this.open.delete(sessionId);
  }

  private recorder(call: RecordedCall): Promise<SessionRecorder> {
    const known = call.sessionId ? this.open.get(call.sessionId) : undefined;
    if (known) return known;
    // Kept as a promise so two first calls racing on one id share one recorder (and one call counter).
    const opening = this.start(call);
    if (call.sessionId) this.remember(call.sessionId, opening);
    return opening.then((r) => {
      if (!call.sessionId) this.remember(r.id, opening);
      return r;
    });
  }

  private async start(call: RecordedCall): Promise<SessionRecorder> {
    const stored = call.sessionId ? await this.memory.sessions.get(this.memory.sessions.key(call.sessionId)) : null;
    if (stored && (stored.endedAt || stored.outcome !== 'unknown')) {
      throw new SessionStateError(
        `session ${stored.id} has already ended (${stored.outcome}); record into a new session id`,
      );
    }
    // A stored session continues with its own goal, as an open one does (a later call's goal is not read).
    const goal = stored?.goal || call.goal?.trim();
    if (!goal && call.sessionId)
      throw new InputError(
        `no session "${call.sessionId}" is open or stored: start it by passing goal (what the agent is trying to do) with this call, or omit session_id to get a new one`,
      );
    if (!goal)
      throw new InputError('the first call of a session needs its goal: pass goal (what the agent is trying to do)');
    // A first call that would be refused opens no session: the client got no id to end it with.
    const wrong = !stored && call.tool ? this.memory.sessions.callProblem(call) : null;
    if (wrong) throw new InputError(`call: ${wrong}`);
    return this.memory.startSession({ goal, id: call.sessionId, agentId: call.agentId, source: 'mcp' });
  }

  private remember(id: string, recorder: Promise<SessionRecorder>) {
    this.open.set(id, recorder);
    recorder.catch(() => this.open.delete(id));
    if (this.open.size > MAX_OPEN) this.open.delete(this.open.keys().next().value!);
  }
}
