import type { RecalledSkill } from '../pipeline/recall.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { Outcome, ToolCall } from '../domain/types.js';
import type { JudgeConfig, JudgeConfigInput, PrivacyConfig, PrivacyConfigInput } from '../capture/capture-config.js';
import { createJudge, type Judgement, type LlmSection, type OutcomeJudge } from '../capture/judge.js';
import {
  jsonSafe,
  protectArgs,
  protectError,
  protectGoal,
  protectResult,
  resolvePrivacy,
  type PrivacyPolicy,
} from '../capture/privacy.js';
import type { OutcomeSource, StartSessionOptions } from '../capture/types.js';
import type { Logger } from '../support/log.js';
import { SessionStateError } from '../errors/session-state-error.js';

/**
 * Tool instrumentation: wrap a set of tools once, and every call is recorded (args, result, ok, error,
 * duration) into the session the caller opened with a goal and closes with an outcome.
 *
 * Guarantees:
 * - a wrapped tool returns exactly what the unwrapped one returns (the same value, the same promise object,
 *   synchronously when the tool is synchronous) and throws exactly what it throws (the same error object);
 * - recording never throws into the agent and never delays a tool: store writes happen after the call, in
 *   the background, in the order the calls started (concurrent calls keep their start order);
 * - when the store fails, the tools still run; the failure is reported once (`onError`, default a warning on
 *   the memory's logger) and counted in `failures`;
 * - capture privacy is applied before anything is written (default: redact secrets and personal data, cap
 *   results), per tool as configured;
 * - a call still running when its session ends is recorded as failed ("did not finish before the session
 *   ended"), with the time it had run.
 *
 * Which session a call belongs to: the session of `recorder.run(...)` (AsyncLocalStorage, safe for concurrent
 * runs), or the session whose own wrappers were used (`session.wrapFunctions(...)`), or else the most recently
 * started session that is still open. A call outside any session runs unrecorded (reported once).
 */

/** The recording side of a memory: `Memory` satisfies it (duck-typed so that tests can pass anything). */
export interface RecordingTarget {
  startSession(opts: StartSessionOptions): Promise<TargetSession>;
  readonly config?: {
    capture?: {
      resultChars?: number;
      privacy?: PrivacyConfigInput | PrivacyConfig;
      judge?: JudgeConfigInput | JudgeConfig;
    };
    llm?: LlmSection;
  };
  /** Where recording failures are reported: `log`, or a Memory's own logger (`memory.parts.log`). */
  readonly log?: Logger;
  readonly parts?: { readonly log?: Logger };
}

export interface TargetSession {
  readonly id: string;
  call(call: {
    tool: string;
    args?: Record<string, unknown>;
    result?: unknown;
    ok?: boolean;
    error?: string | null;
    durationMs?: number | null;
  }): Promise<void>;
  /** `opts.source` is `judged` when the outcome judge decided (stored as `outcome_source`). */
  end(outcome: Outcome, reward?: number | null, opts?: { source?: OutcomeSource }): Promise<void>;
  recall?(goal?: string, opts?: { topK?: number; tools?: readonly string[] }): Promise<RecalledSkill[]>;
}

export interface RecordingErrorContext {
  op: 'start' | 'call' | 'end' | 'recall' | 'unattributed' | 'record';
  sessionId?: string;
  tool?: string;
}

/** How a tool's returned value is summarised and whether it counts as a failure. */
export interface ResultReading {
  result: string;
  ok: boolean;
  error: string | null;
}

export interface RecorderOptions {
  /** Capture privacy (default: the memory's `capture.privacy`, else redact). */
  privacy?: PrivacyConfigInput | PrivacyConfig;
  /** Cap of a stored result summary (default: the memory's `capture.resultChars`, else 2000). */
  resultChars?: number;
  /**
   * Decides the outcome of a session ended without one: a judge, a judge configuration, or `null` to leave it
   * unknown (default: the memory's `capture.judge`, else the conservative rule).
   */
  judge?: OutcomeJudge | JudgeConfigInput | null;
  /** Called once, with the first recording failure (default: a warning on the memory's logger, or stderr). */
  onError?: (error: unknown, context: RecordingErrorContext) => void;
  /** Marks a returned value as a failed call (e.g. `{ error: ... }` payloads); a string is the error text. */
  isError?: (value: unknown, tool: string) => boolean | string;
  /** Defaults for every session. */
  agentId?: string;
  source?: string;
  namespace?: string;
  /** Milliseconds clock for durations (tests). */
  clock?: () => number;
}

/** What a recorded session starts with: the same options as `Memory.startSession` (the public name of this entry). */
export type StartOptions = StartSessionOptions;

export interface EndOptions {
  /** The outcome when known; without it the judge decides (stored as judged). */
  outcome?: Outcome;
  reward?: number | null;
  /** The agent's final answer to the user, for the judge. */
  finalAnswer?: string | null;
}

export interface EndResult {
  outcome: Outcome;
  outcomeSource: OutcomeSource;
  /** The judge's reason when it decided. */
  reason?: string;
  /** Calls written to the store. */
  recorded: number;
}

/** One call as recorded (after privacy), for inspection. */
export type RecordedCall = Omit<ToolCall, 'position' | 'at'> & { at: string };

const UNFINISHED = 'did not finish before the session ended';

function isNativePromise(v: unknown): v is Promise<unknown> {
  return v instanceof Promise || Object.prototype.toString.call(v) === '[object Promise]';
}

function isThenable(v: unknown): boolean {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

function errorText(e: unknown): string {
  if (e instanceof Error)
    return e.name && e.name !== 'Error' && !e.message.startsWith(e.name)
      ? `${e.name}: ${e.message}`
      : e.message || e.name;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

/** Text summary of any returned value (never throws). */
export function summarise(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && Symbol.asyncIterator in (value as object) && !isThenable(value))
    return '(streamed result)';
  const safe = jsonSafe(value);
  return typeof safe === 'string' ? safe : (JSON.stringify(safe) ?? '');
}

/** Arguments of a call as a record: one object argument as is, a JSON object string parsed, else positional. */
export function argsRecord(args: readonly unknown[]): Record<string, unknown> {
  if (args.length === 0) return {};
  if (args.length === 1) {
    const [a] = args;
    if (a && typeof a === 'object' && !Array.isArray(a)) return jsonSafe(a) as Record<string, unknown>;
    if (typeof a === 'string') {
      const t = a.trim();
      if (t.startsWith('{')) {
        try {
          const v = JSON.parse(t);
          if (v && typeof v === 'object' && !Array.isArray(v)) return v;
        } catch {
          /* plain text */
        }
      }
    }
    return { input: jsonSafe(a) };
  }
  return { args: jsonSafe(args) };
}

interface Slot {
  tool: string;
  args: Record<string, unknown>;
  started: number;
  at: string;
  done: RecordedCall | null;
}

/** One recorded session. Obtained from `recorder.startSession` / `recorder.run`; never throws. */
export class RecordedSession {
  readonly goal: string;
  private readonly slots: Slot[] = [];
  private head = 0;
  private chain: Promise<void> = Promise.resolve();
  private endedWith: Promise<EndResult> | null = null;
  private written = 0;
  /** Calls as recorded (after privacy), in start order. */
  readonly calls: RecordedCall[] = [];

  constructor(
    private readonly recorder: ToolRecorder,
    private readonly inner: TargetSession | null,
    readonly id: string,
    goal: string,
  ) {
    this.goal = goal;
  }

  /** Whether the store accepted the session (false: calls run unrecorded). */
  get recording(): boolean {
    return this.inner !== null;
  }

  get ended(): boolean {
    return this.endedWith !== null;
  }

  /** @internal Reserves the next position for a call that starts now. */
  begin(tool: string, args: Record<string, unknown>): Slot | null {
    if (this.endedWith) return null;
    const slot: Slot = { tool, args, started: this.recorder.clock(), at: new Date().toISOString(), done: null };
    this.slots.push(slot);
    return slot;
  }

  /** @internal The call finished: protect what is stored, then write every finished call at the head, in order. */
  finish(slot: Slot, reading: ResultReading) {
    if (slot.done) return; // already closed as unfinished by end()
    const p = this.recorder.policy;
    const cap = this.recorder.resultChars;
    slot.done = {
      tool: slot.tool,
      args: protectArgs(p, slot.tool, slot.args),
      result: protectResult(p, slot.tool, reading.result, cap),
      ok: reading.ok,
      error: protectError(p, slot.tool, reading.error),
      durationMs: Math.max(0, Math.round((this.recorder.clock() - slot.started) * 1000) / 1000),
      at: slot.at,
    };
    this.schedule();
  }

  private schedule() {
    this.chain = this.chain.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    while (this.head < this.slots.length && this.slots[this.head].done) {
      const c = this.slots[this.head++].done!;
      this.calls.push(c);
      if (!this.inner) continue;
      try {
        await this.inner.call({
          tool: c.tool,
          args: c.args,
          result: c.result,
          ok: c.ok,
          error: c.error,
          durationMs: c.durationMs,
        });
        this.written++;
      } catch (e) {
        this.recorder.report(e, { op: 'call', sessionId: this.id, tool: c.tool });
      }
    }
  }

  /** Records a call made outside the wrappers (e.g. a tool the agent ran itself). */
  async record(call: {
    tool: string;
    args?: Record<string, unknown>;
    result?: unknown;
    ok?: boolean;
    error?: string | null;
    durationMs?: number | null;
  }): Promise<void> {
    try {
      const slot = this.begin(call.tool, (jsonSafe(call.args ?? {}) as Record<string, unknown>) ?? {});
      if (!slot) return;
      const error = call.error ?? null;
      this.finish(slot, { result: summarise(call.result), ok: call.ok ?? !error, error });
      if (call.durationMs != null && slot.done) slot.done.durationMs = call.durationMs;
      await this.chain;
    } catch (e) {
      this.recorder.report(e, { op: 'record', sessionId: this.id, tool: call.tool });
    }
  }

  /** Waits until every finished call has been written. */
  async flush(): Promise<void> {
    await this.chain;
  }

  /** Skills for this session's goal (recalled skills become trials when a reported outcome arrives). [] on failure. */
  async recall(goal?: string, opts?: { topK?: number; tools?: readonly string[] }): Promise<RecalledSkill[]> {
    if (!this.inner?.recall) return [];
    try {
      return await this.inner.recall(goal ?? this.goal, opts);
    } catch (e) {
      this.recorder.report(e, { op: 'recall', sessionId: this.id });
      return [];
    }
  }

  /**
   * Closes the session: calls still running are recorded as unfinished, every call is written, then the
   * outcome is stored: the one given (reported), or the judge's (judged). Idempotent; never throws.
   */
  end(outcome?: Outcome | EndOptions): Promise<EndResult> {
    if (this.endedWith) return this.endedWith;
    const opts: EndOptions = typeof outcome === 'string' ? { outcome } : (outcome ?? {});
    this.endedWith = this.close(opts);
    return this.endedWith;
  }

  /** @internal The agent loop threw: a failure, but inferred (stored as judged). */
  endCrashed(error: string): Promise<EndResult> {
    if (this.endedWith) return this.endedWith;
    this.endedWith = this.close({}, { outcome: 'failure', reason: `the agent loop threw: ${error.slice(0, 200)}` });
    return this.endedWith;
  }

  private async close(opts: EndOptions, crashed?: { outcome: Outcome; reason: string }): Promise<EndResult> {
    for (const s of this.slots) if (!s.done) this.finish(s, { result: '', ok: false, error: UNFINISHED });
    this.schedule();
    await this.chain;
    let outcome: Outcome = opts.outcome ?? 'unknown';
    let source: OutcomeSource = 'reported';
    let reason: string | undefined;
    if (crashed) {
      outcome = crashed.outcome;
      source = 'judged';
      reason = crashed.reason;
    } else if (!opts.outcome) {
      const j = await this.recorder.judgeCalls(this.goal, this.calls, opts.finalAnswer ?? null);
      if (j && j.outcome !== 'unknown') {
        outcome = j.outcome;
        source = 'judged';
      }
      reason = j?.reason;
    }
    if (this.inner) {
      try {
        await this.inner.end(outcome, opts.reward ?? null, { source });
      } catch (e) {
        this.recorder.report(e, { op: 'end', sessionId: this.id });
      }
    }
    this.recorder.closed(this);
    return { outcome, outcomeSource: source, ...(reason ? { reason } : {}), recorded: this.written };
  }

  // ── wrappers bound to this session ──
  // biome-ignore lint/suspicious/noExplicitAny: any function of the wrapped SDK: its own parameter types are kept by F
  wrap<F extends (...args: any[]) => any>(name: string, fn: F): F {
    return this.recorder.wrapWith(() => this, name, fn);
  }

  wrapFunctions<T extends Record<string, unknown>>(tools: T): T {
    return this.recorder.functionsWith(() => this, tools);
  }

  wrapVercelTools<T extends Record<string, unknown>>(tools: T): T {
    return this.recorder.vercelWith(() => this, tools);
  }

  wrapMcpClient<C extends object>(client: C): C {
    return this.recorder.mcpWith(() => this, client);
  }

  wrapLangChainTools<T extends object>(tools: T[]): T[] {
    return this.recorder.langChainWith(() => this, tools);
  }
}

/** The recorder: wraps tools and opens sessions. Create one per memory with `createRecorder(memory)`. */
export class ToolRecorder {
  readonly policy: PrivacyPolicy;
  readonly resultChars: number;
  readonly clock: () => number;
  private readonly judge: OutcomeJudge | null;
  private readonly als = new AsyncLocalStorage<RecordedSession>();
  private readonly open: RecordedSession[] = [];
  private reported = false;
  private inertCounter = 0;
  /** Recording failures so far (the first one was reported). */
  failures = 0;
  lastError: unknown = null;

  private readonly log: Logger | undefined;

  constructor(
    private readonly target: RecordingTarget,
    private readonly opts: RecorderOptions = {},
  ) {
    this.log = target.log ?? target.parts?.log;
    const capture = target.config?.capture;
    this.policy = resolvePrivacy(opts.privacy ?? capture?.privacy ?? {});
    this.resultChars = opts.resultChars ?? capture?.resultChars ?? 2000;
    this.clock = opts.clock ?? (() => performance.now());
    if (opts.judge === null) this.judge = null;
    else if (opts.judge && typeof (opts.judge as OutcomeJudge).judge === 'function')
      this.judge = opts.judge as OutcomeJudge;
    else
      this.judge = createJudge(
        (opts.judge as JudgeConfigInput | undefined) ?? capture?.judge ?? {},
        target.config?.llm ?? {},
        { log: this.log },
      );
  }

  /** @internal Reports a recording failure: the first one through `onError`, every one counted. */
  report(error: unknown, context: RecordingErrorContext) {
    if ((error as { name?: string })?.name === 'DisabledError') return; // memory off on purpose: nothing to report
    this.failures++;
    this.lastError = error;
    if (this.reported) return;
    this.reported = true;
    try {
      if (this.opts.onError) this.opts.onError(error, context);
      else {
        const msg = `tool recording failed (${context.op}${context.tool ? ` ${context.tool}` : ''}); the agent is unaffected, further failures are not reported`;
        if (this.log) this.log.warn(msg, { error: errorText(error), sessionId: context.sessionId });
        else process.stderr.write(`skillsmith: ${msg}: ${errorText(error)}\n`);
      }
    } catch {
      /* a reporter that throws must not reach the agent either */
    }
  }

  /** @internal */
  async judgeCalls(goal: string, calls: RecordedCall[], finalAnswer: string | null): Promise<Judgement | null> {
    if (!this.judge) return null;
    try {
      return await this.judge.judge({ goal, calls, finalAnswer });
    } catch (e) {
      this.report(e, { op: 'end' });
      return null;
    }
  }

  /** @internal */
  closed(session: RecordedSession) {
    const i = this.open.indexOf(session);
    if (i >= 0) this.open.splice(i, 1);
  }

  /** Opens a session for a goal. Never throws: when the store fails the session runs unrecorded (reported once). */
  async startSession(opts: StartOptions): Promise<RecordedSession> {
    const goal = typeof opts?.goal === 'string' ? opts.goal : '';
    let inner: TargetSession | null = null;
    try {
      inner = await this.target.startSession({
        goal: protectGoal(this.policy, goal),
        ...(typeof opts.cue === 'string' && opts.cue.trim() ? { cue: protectGoal(this.policy, opts.cue) } : {}),
        ...(opts.id ? { id: opts.id } : {}),
        ...((opts.agentId ?? this.opts.agentId) ? { agentId: opts.agentId ?? this.opts.agentId } : {}),
        source: opts.source ?? this.opts.source ?? 'instrument',
        ...((opts.namespace ?? this.opts.namespace) ? { namespace: opts.namespace ?? this.opts.namespace } : {}),
      });
    } catch (e) {
      this.report(e, { op: 'start' });
    }
    const id = inner?.id ?? opts.id ?? `unrecorded-${++this.inertCounter}`;
    const session = new RecordedSession(this, inner, id, goal);
    this.open.push(session);
    return session;
  }

  /**
   * Runs `fn` inside a new session: tools called anywhere in it (even concurrently with other runs) are
   * recorded into this session. When `fn` returns, the session ends as `fn` left it (or judged); when it
   * throws, the session ends as failed (judged) and the error is rethrown unchanged.
   */
  async run<T>(opts: StartOptions, fn: (session: RecordedSession) => T | Promise<T>): Promise<T> {
    const session = await this.startSession(opts);
    return this.als.run(session, async () => {
      let value: T;
      try {
        value = await fn(session);
      } catch (e) {
        if (!session.ended) await this.endAsCrashed(session, e);
        throw e;
      }
      if (!session.ended) await session.end();
      return value;
    });
  }

  private async endAsCrashed(session: RecordedSession, e: unknown) {
    await session.endCrashed(errorText(e));
  }

  /** The session a call belongs to: the `run` context, else the most recent open session. */
  current(): RecordedSession | null {
    // Inside run(): that run's session, even once it has ended (a late call is then not recorded, rather than
    // landing in another run's session).
    const s = this.als.getStore();
    if (s) return s;
    return this.open.length ? this.open[this.open.length - 1] : null;
  }

  // ── generic wrapping ──

  /** @internal Wraps one function; `read` turns a returned value into a result summary. */
  // biome-ignore lint/suspicious/noExplicitAny: any function of the wrapped SDK: its own parameter types are kept by F
  wrapWith<F extends (...args: any[]) => any>(
    resolve: () => RecordedSession | null,
    name: string,
    fn: F,
    read: (value: unknown) => ResultReading = (v) => this.readValue(v, name),
    argsOf: (args: unknown[]) => Record<string, unknown> = argsRecord,
  ): F {
    const recorder = this;
    const wrapped = function (this: unknown, ...args: unknown[]) {
      let session: RecordedSession | null = null;
      let slot: Slot | null = null;
      try {
        session = resolve();
        if (session) slot = session.begin(name, argsOf(args));
        else
          recorder.report(new SessionStateError(`tool ${name} was called outside a session: not recorded`), {
            op: 'unattributed',
            tool: name,
          });
      } catch (e) {
        recorder.report(e, { op: 'record', tool: name });
      }
      const done = (reading: () => ResultReading) => {
        if (!session || !slot) return;
        try {
          session.finish(slot, reading());
        } catch (e) {
          recorder.report(e, { op: 'record', sessionId: session.id, tool: name });
        }
      };
      let value: unknown;
      try {
        value = fn.apply(this, args);
      } catch (e) {
        done(() => ({ result: '', ok: false, error: errorText(e) }));
        throw e;
      }
      if (isNativePromise(value)) {
        value.then(
          (v) => done(() => read(v)),
          (e) => done(() => ({ result: '', ok: false, error: errorText(e) })),
        );
      } else if (isThenable(value)) {
        // A foreign thenable may be lazy (calling then() could run it again): not observed.
        done(() => ({ result: '(thenable result not observed)', ok: true, error: null }));
      } else {
        done(() => read(value));
      }
      return value;
    };
    Object.defineProperty(wrapped, 'name', { value: fn.name || name, configurable: true });
    Object.defineProperty(wrapped, 'length', { value: fn.length, configurable: true });
    return wrapped as unknown as F;
  }

  /** @internal The default reading of a returned value (with the `isError` option). */
  readValue(value: unknown, tool: string): ResultReading {
    const result = summarise(value);
    const verdict = this.opts.isError?.(value, tool);
    if (verdict) return { result, ok: false, error: typeof verdict === 'string' ? verdict : result || 'error' };
    return { result, ok: true, error: null };
  }

  /** @internal */
  functionsWith<T extends Record<string, unknown>>(resolve: () => RecordedSession | null, tools: T): T {
    const out: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(tools)) {
      // biome-ignore lint/suspicious/noExplicitAny: any function of the wrapped SDK: its own parameter types are kept by F
      out[name] = typeof v === 'function' ? this.wrapWith(resolve, name, v as (...a: any[]) => any) : v;
    }
    return out as T;
  }

  /** @internal */
  vercelWith<T extends Record<string, unknown>>(resolve: () => RecordedSession | null, tools: T): T {
    const out: Record<string, unknown> = {};
    for (const [name, t] of Object.entries(tools)) {
      const execute = t && typeof t === 'object' ? (t as { execute?: unknown }).execute : undefined;
      if (typeof execute !== 'function') {
        out[name] = t; // client-side tools (no execute) are the app's business
        continue;
      }
      const copy = Object.assign(Object.create(Object.getPrototypeOf(t)), t) as Record<string, unknown>;
      // execute(input, { toolCallId, messages, abortSignal }): the input is the call's arguments.
      // biome-ignore lint/suspicious/noExplicitAny: any function of the wrapped SDK: its own parameter types are kept by F
      copy.execute = this.wrapWith(resolve, name, execute.bind(t) as (...a: any[]) => any, undefined, (args) =>
        argsRecord(args.slice(0, 1)),
      );
      out[name] = copy;
    }
    return out as T;
  }

  /** @internal */
  mcpWith<C extends object>(resolve: () => RecordedSession | null, client: C): C {
    const recorder = this;
    const cache = new Map<PropertyKey, unknown>();
    return new Proxy(client, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        let bound = cache.get(prop);
        if (bound && (bound as { __orig?: unknown }).__orig === value) return bound;
        if (prop === 'callTool') {
          const call = (params: { name?: unknown; arguments?: unknown }, ...rest: unknown[]) => {
            const name = typeof params?.name === 'string' ? params.name : 'unknown_tool';
            const wrapped = recorder.wrapWith(
              resolve,
              name,
              (p: unknown, ...r: unknown[]) => (value as (...a: unknown[]) => unknown).call(target, p, ...r),
              readMcpResult,
              (args) => argsRecord([(args[0] as { arguments?: unknown })?.arguments ?? {}]),
            );
            return wrapped(params, ...rest);
          };
          bound = call;
        } else bound = (value as (...a: unknown[]) => unknown).bind(target);
        (bound as { __orig?: unknown }).__orig = value;
        cache.set(prop, bound);
        return bound;
      },
    });
  }

  /** @internal LangChain.js tools: objects with `name` and `invoke(input, config)` (StructuredTool, DynamicTool, tool()). */
  langChainWith<T extends object>(resolve: () => RecordedSession | null, tools: T[]): T[] {
    return tools.map((tool) => {
      const name = String((tool as { name?: unknown }).name ?? 'tool');
      const invoke = (tool as { invoke?: unknown }).invoke;
      if (typeof invoke !== 'function') return tool;
      const wrappedInvoke = this.wrapWith(
        resolve,
        name,
        (input: unknown, ...rest: unknown[]) => invoke.call(tool, input, ...rest),
        (v) => readLangChainResult(v, this, name),
        (args) => {
          const input = args[0] as { type?: unknown; args?: unknown } | undefined;
          // A ToolCall object ({name, args, id, type: 'tool_call'}) carries the arguments in `args`.
          return argsRecord([input && typeof input === 'object' && input.type === 'tool_call' ? input.args : input]);
        },
      );
      return new Proxy(tool, {
        get(target, prop) {
          if (prop === 'invoke') return wrappedInvoke;
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    });
  }

  // ── public wrappers (calls go to the current session) ──

  /** One function, recorded under `name`. */
  // biome-ignore lint/suspicious/noExplicitAny: any function of the wrapped SDK: its own parameter types are kept by F
  wrap<F extends (...args: any[]) => any>(name: string, fn: F): F {
    return this.wrapWith(() => this.current(), name, fn);
  }

  /** OpenAI / Anthropic tool-calling loops: a map of functions keyed by tool name. */
  wrapFunctions<T extends Record<string, unknown>>(tools: T): T {
    return this.functionsWith(() => this.current(), tools);
  }

  /** Vercel AI SDK: a `{ name: tool({ description, parameters | inputSchema, execute }) }` map. */
  wrapVercelTools<T extends Record<string, unknown>>(tools: T): T {
    return this.vercelWith(() => this.current(), tools);
  }

  /** An MCP client (`@modelcontextprotocol/sdk` Client, or anything with `callTool({ name, arguments })`). */
  wrapMcpClient<C extends object>(client: C): C {
    return this.mcpWith(() => this.current(), client);
  }

  /** LangChain.js tools (objects with `name` and `invoke`). */
  wrapLangChainTools<T extends object>(tools: T[]): T[] {
    return this.langChainWith(() => this.current(), tools);
  }
}

/** MCP `CallToolResult`: text content (or structured content) is the result; `isError` marks a failure. */
export function readMcpResult(value: unknown): ResultReading {
  const v = (value ?? {}) as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
    toolResult?: unknown;
  };
  let text: string;
  if (Array.isArray(v.content) && v.content.length) {
    text = v.content
      .map((c) => {
        const part = c as { type?: string; text?: unknown; resource?: { text?: unknown; uri?: unknown } };
        if (part.type === 'text') return String(part.text ?? '');
        if (part.type === 'resource' && part.resource) return String(part.resource.text ?? part.resource.uri ?? '');
        return `(${part.type ?? 'content'})`;
      })
      .join('\n');
  } else if (v.structuredContent !== undefined) text = summarise(v.structuredContent);
  else if (v.toolResult !== undefined) text = summarise(v.toolResult);
  else text = summarise(value);
  return v.isError === true
    ? { result: text, ok: false, error: text || 'isError' }
    : { result: text, ok: true, error: null };
}

function readLangChainResult(value: unknown, recorder: ToolRecorder, tool: string): ResultReading {
  // A ToolMessage: { content, status?: 'success' | 'error' }.
  const v = value as { content?: unknown; status?: unknown; lc_namespace?: unknown } | null;
  if (v && typeof v === 'object' && 'content' in v && ('lc_namespace' in v || 'tool_call_id' in v)) {
    const text = summarise(v.content);
    return v.status === 'error'
      ? { result: text, ok: false, error: text || 'error' }
      : { result: text, ok: true, error: null };
  }
  return recorder.readValue(value, tool);
}

/** A recorder over a memory (or any RecordingTarget). */
export function createRecorder(target: RecordingTarget, opts: RecorderOptions = {}): ToolRecorder {
  return new ToolRecorder(target, opts);
}
