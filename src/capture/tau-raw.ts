import { createHash } from 'node:crypto';
import type { Outcome, ToolCall } from '../domain/types.js';
import { contentText, ERROR_RESULT, isObject, parseArgs, type JsonObject } from './common.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import { fromOpenAi } from './openai-messages.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * Raw tau-bench and tau2-bench result files, as the benchmarks write them.
 *
 * - tau-bench (`run.py`, `historical_trajectories/*.json`): a JSON array of
 *   `{task_id, reward, info: {task: {user_id, instruction, actions, outputs}, reward_info, ...}, traj, trial}`,
 *   `traj` being the OpenAI-style messages of the run (tool-calling agents), or ReAct text turns
 *   (`Action: {"name": ..., "arguments": ...}` answered by `API output: ...`).
 * - tau2-bench (`data/simulations/*.json`): `{info, tasks: [...], simulations: [{id, task_id, trial, messages,
 *   reward_info: {reward}, termination_reason, start_time, end_time}]}`; the messages carry `tool_calls` with
 *   `requestor` (the agent's calls are the session; the simulated user's device calls are kept as labels) and
 *   `tool` messages paired by `id`.
 *
 * The goal is the task instruction the benchmark names (tau-bench `info.task.instruction`, tau2-bench
 * `user_scenario.instructions.reason_for_call`), else the first user message. The outcome is the reward:
 * success when it is 1 (the benchmarks' own threshold), failure otherwise.
 */

const SUCCESS_MIN = 1 - 1e-6;
const RESPOND_ACTION = 'respond';

export function isTauBenchResult(v: unknown): v is JsonObject {
  return isObject(v) && Array.isArray(v.traj) && ('task_id' in v || 'reward' in v);
}

export function isTau2Results(v: unknown): v is JsonObject {
  return isObject(v) && Array.isArray(v.simulations);
}

export function isTau2Simulation(v: unknown): v is JsonObject {
  return (
    isObject(v) && Array.isArray(v.messages) && 'task_id' in v && ('reward_info' in v || 'termination_reason' in v)
  );
}

export function isTauRecord(v: unknown): boolean {
  return isTauBenchResult(v) || isTau2Results(v) || isTau2Simulation(v);
}

function rewardOf(v: unknown, where: string): number | null {
  if (v == null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new InputError(`${where}: must be a number`);
  if (v < 0 || v > 1 + 1e-6) throw new InputError(`${where}: ${v} is outside [0, 1]`);
  return Math.min(1, v);
}

const outcomeOfReward = (r: number | null): Outcome =>
  r == null ? 'unknown' : r >= SUCCESS_MIN ? 'success' : 'failure';

function shortHash(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 10);
}

/** One tau-bench `EnvRunResult`. */
export function fromTauBench(rec: JsonObject, namespace: string, limits: CaptureLimits, now: string): ParsedSession {
  const info = isObject(rec.info) ? rec.info : {};
  const task = isObject(info.task) ? info.task : {};
  const reward = rewardOf(rec.reward, 'reward');
  const instruction = typeof task.instruction === 'string' && task.instruction.trim() ? task.instruction : undefined;
  const traj = rec.traj as unknown[];
  traj.forEach((m, i) => {
    if (!isObject(m)) throw new InputError(`traj[${i}]: not a message object`);
  });
  const tool = traj.some(
    (m) => isObject(m) && (m.role === 'tool' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)),
  );
  let parsed: ParsedSession;
  try {
    parsed = tool
      ? fromOpenAi({ messages: traj, goal: instruction }, namespace, limits, now)
      : fromReAct(traj, instruction, namespace, limits, now);
  } catch (e) {
    throw new InputError((e as Error).message.replace(/^messages\[/, 'traj['));
  }
  const taskId = rec.task_id ?? 'unknown';
  const trial = typeof rec.trial === 'number' ? rec.trial : 0;
  const firstUser = traj.find((m) => isObject(m) && m.role === 'user');
  const s = parsed.session;
  s.id = `tau-bench:task${String(taskId)}:trial${trial}:${shortHash(traj)}`;
  s.outcome = outcomeOfReward(reward);
  s.reward = reward;
  s.source = typeof info.source === 'string' && info.source !== 'user' ? `tau-bench:${info.source}` : 'tau-bench';
  s.cue = cueText(firstUser ? contentText((firstUser as JsonObject).content) : null, s.goal);
  s.agentId = null;
  s.labels = {
    format: 'tau-bench',
    task_id: taskId,
    trial,
    ...(typeof task.user_id === 'string' ? { user_id: task.user_id } : {}),
    ...(Array.isArray(task.actions)
      ? { gold_actions: task.actions.map((a) => (isObject(a) ? a.name : null)).filter(Boolean) }
      : {}),
    ...(firstUser ? { first_user_message: contentText((firstUser as JsonObject).content) } : {}),
  };
  return parsed;
}

/** tau-bench's ReAct agents write their actions as text: `Action:\n{"name": ..., "arguments": {...}}`. */
function fromReAct(
  traj: unknown[],
  instruction: string | undefined,
  namespace: string,
  limits: CaptureLimits,
  now: string,
): ParsedSession {
  const calls: ToolCall[] = [];
  let goal = instruction ?? null;
  let open: ToolCall | null = null;
  let finalAnswer: string | null = null;
  traj.forEach((raw, i) => {
    const m = raw as JsonObject;
    const text = contentText(m.content);
    if (m.role === 'user') {
      if (open && /^\s*API output:/i.test(text)) {
        const result = text.replace(/^\s*API output:\s*/i, '');
        open.result = capText(result, limits.resultChars);
        if (ERROR_RESULT.test(result)) {
          open.ok = false;
          open.error = capText(result, 500);
        }
        open = null;
        return;
      }
      if (goal === null && text.trim()) goal = text;
    }
    if (m.role !== 'assistant') return;
    const at = text.search(/Action:\s*\{/);
    if (at < 0) return;
    const json = text.slice(text.indexOf('{', at));
    let action: unknown;
    try {
      action = JSON.parse(json);
    } catch {
      throw new InputError(`traj[${i}].content: the Action is not valid JSON`);
    }
    if (!isObject(action) || typeof action.name !== 'string')
      throw new InputError(`traj[${i}].content: the Action has no name`);
    if (action.name === RESPOND_ACTION) {
      finalAnswer =
        isObject(action.arguments) && typeof action.arguments.content === 'string'
          ? action.arguments.content
          : finalAnswer;
      return;
    }
    open = {
      position: calls.length,
      tool: action.name,
      args: parseArgs(action.arguments, `traj[${i}].content.Action.arguments`),
      result: '',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    };
    calls.push(open);
    finalAnswer = null;
  });
  if (goal === null)
    throw new InputError('no task instruction (info.task.instruction) and no user message to take the goal from');
  if (calls.length > limits.maxCallsPerSession)
    throw new InputError(
      `${calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
    );
  return {
    session: {
      id: '',
      namespace,
      goal,
      outcome: 'unknown',
      reward: null,
      agentId: null,
      source: 'tau-bench',
      startedAt: now,
      endedAt: null,
      labels: null,
      calls,
      outcomeSource: 'reported',
    },
    finalAnswer,
  };
}

/** The tasks of a tau2 results file by id, for their instructions. */
export function tau2TaskIndex(doc: JsonObject): Map<string, JsonObject> {
  const index = new Map<string, JsonObject>();
  if (Array.isArray(doc.tasks)) for (const t of doc.tasks) if (isObject(t) && t.id != null) index.set(String(t.id), t);
  return index;
}

function tau2Goal(task: JsonObject | undefined): string | null {
  const scenario = task && isObject(task.user_scenario) ? task.user_scenario : null;
  const instr = scenario?.instructions;
  if (typeof instr === 'string' && instr.trim()) return instr;
  if (isObject(instr) && typeof instr.reason_for_call === 'string' && instr.reason_for_call.trim())
    return instr.reason_for_call;
  return null;
}

/** One tau2-bench simulation run (with its results file's `info` and task index when it came in one). */
export function fromTau2Simulation(
  sim: JsonObject,
  ctx: { info?: JsonObject; tasks?: Map<string, JsonObject> },
  namespace: string,
  limits: CaptureLimits,
  now: string,
): ParsedSession {
  const info = ctx.info ?? {};
  const env = isObject(info.environment_info) ? info.environment_info : {};
  const agent = isObject(info.agent_info) ? info.agent_info : {};
  const domain =
    typeof env.domain_name === 'string' ? env.domain_name : typeof sim.domain === 'string' ? sim.domain : 'unknown';
  const taskId = String(sim.task_id);
  let goal = tau2Goal(ctx.tasks?.get(taskId));
  const rewardInfo = isObject(sim.reward_info) ? sim.reward_info : {};
  const reward = rewardOf(rewardInfo.reward, 'reward_info.reward');

  const calls: ToolCall[] = [];
  const pending: { id: string | null; call: ToolCall | null }[] = [];
  const userCalls: { tool: string; ok: boolean; pending: boolean; id: string | null }[] = [];
  let finalAnswer: string | null = null;
  let firstUser: string | null = null;
  (sim.messages as unknown[]).forEach((raw, i) => {
    if (!isObject(raw)) throw new InputError(`messages[${i}]: not a message object`);
    const m = raw;
    const text = typeof m.content === 'string' ? m.content : contentText(m.content);
    const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    if (m.role === 'user' && text.trim() && firstUser === null) firstUser = text;
    toolCalls.forEach((tc, j) => {
      const where = `messages[${i}].tool_calls[${j}]`;
      if (!isObject(tc)) throw new InputError(`${where}: not an object`);
      if (typeof tc.name !== 'string' || !tc.name) throw new InputError(`${where}.name: missing`);
      const id = typeof tc.id === 'string' && tc.id ? tc.id : null;
      const byAgent = (tc.requestor ?? m.role) === 'assistant';
      if (!byAgent) {
        userCalls.push({ tool: tc.name, ok: true, pending: true, id });
        pending.push({ id, call: null });
        return;
      }
      const call: ToolCall = {
        position: calls.length,
        tool: tc.name,
        args: parseArgs(tc.arguments, `${where}.arguments`),
        result: '',
        ok: true,
        error: null,
        durationMs: null,
        at: typeof m.timestamp === 'string' ? m.timestamp : null,
      };
      calls.push(call);
      pending.push({ id, call });
    });
    if (m.role === 'assistant')
      finalAnswer = toolCalls.length === 0 && text.trim() ? text.trim() : toolCalls.length ? null : finalAnswer;
    if (m.role === 'tool') {
      const id = typeof m.id === 'string' ? m.id : typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
      let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
      if (k < 0) k = 0;
      const match = pending.splice(k, 1)[0];
      if (!match) throw new InputError(`messages[${i}]: tool result without a pending tool call`);
      const failed = typeof m.error === 'boolean' ? m.error : ERROR_RESULT.test(text);
      if (match.call) {
        match.call.result = capText(text, limits.resultChars);
        if (failed) {
          match.call.ok = false;
          match.call.error = capText(text || 'tool error', 500);
        }
        finalAnswer = null;
      } else {
        const u = userCalls.find((c) => c.pending && c.id === match.id) ?? userCalls.find((c) => c.pending);
        if (u) {
          u.pending = false;
          u.ok = !failed;
        }
      }
    }
  });
  goal ??= firstUser;
  if (goal === null) throw new InputError('no task instructions and no user message to take the goal from');
  if (calls.length > limits.maxCallsPerSession)
    throw new InputError(
      `${calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
    );
  const simId = typeof sim.id === 'string' && sim.id ? sim.id : shortHash(sim.messages);
  return {
    session: {
      id: `tau2-bench:${domain}:task${taskId}:trial${typeof sim.trial === 'number' ? sim.trial : 0}:${simId}`,
      namespace,
      goal,
      cue: cueText(firstUser as string | null, goal),
      outcome: outcomeOfReward(reward),
      reward,
      agentId: typeof agent.llm === 'string' ? agent.llm : null,
      source: 'tau2-bench',
      startedAt: typeof sim.start_time === 'string' ? sim.start_time : now,
      endedAt: typeof sim.end_time === 'string' ? sim.end_time : null,
      labels: {
        format: 'tau2-bench',
        domain,
        task_id: taskId,
        trial: typeof sim.trial === 'number' ? sim.trial : 0,
        ...(firstUser !== null ? { first_user_message: firstUser } : {}),
        ...(typeof sim.termination_reason === 'string' ? { termination_reason: sim.termination_reason } : {}),
        ...(userCalls.length ? { user_tool_calls: userCalls.map((u) => ({ tool: u.tool, ok: u.ok })) } : {}),
      },
      calls,
      outcomeSource: 'reported',
    },
    finalAnswer,
  };
}

/** The first user message as a cue, unless it only repeats the goal. */
function cueText(firstUser: string | null, goal: string): string | null {
  const text = firstUser?.trim();
  return text && text !== goal.trim() ? text : null;
}
