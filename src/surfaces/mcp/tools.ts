import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Memory } from '../../app/memory.js';
import {
  errorCodeOf,
  learnedNothing,
  noMatch,
  noSkillNamed,
  skillSummaryJson,
  stableReport,
  synthesisLines,
} from '../shapes.js';
import type { LiveSessions } from './live-sessions.js';
import { InputError, NotFoundError } from '../../errors/index.js';
import { busyStoreText, unreachableStoreText } from '../../app/store-errors.js';
import { neutraliseInstructions } from '../../domain/untrusted-text.js';
import { MAX_FEEDBACK_ID_CHARS } from '../../domain/feedback-key.js';

const sessionId = z.string().min(1).max(500);
const status = z.enum(['probationary', 'active', 'retired']);

/**
 * A tool's arguments, unknown names refused: a client that sends `sessionId` for `session_id` is told so (and the
 * listed schema says additionalProperties: false), rather than having the argument dropped without a word.
 */
function strictArgs<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}: this tool takes ${known.length ? known.join(', ') : 'no arguments'}`
        : undefined,
  });
}

/** A skill a synthesis pass wrote, as its report names it. */
const skillRef = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  cluster: z.string(),
  keptEdit: z.literal(true).optional().describe("a skill a person edited: the pass kept the person's text"),
  suggests: z
    .array(z.string())
    .optional()
    .describe('with keptEdit: the procedure its sessions now suggest instead, its tools in order'),
});

/** The structured results (outputSchema): a client can rely on these fields being there. */
/** A group of sessions alike in their steps, too few to learn from alone (goals defused, see `defusedGroups`). */
const alikeGroup = z.object({
  sessions: z.array(z.string()),
  goals: z.array(z.string()),
  steps: z.array(z.object({ tool: z.string(), command: z.string().optional() })),
});

const output = {
  recorded: { session_id: z.string() },
  ended: { session_id: z.string(), outcome: z.enum(['success', 'failure', 'unknown']) },
  recalled: {
    skill_ids: z.array(z.string()),
    skills: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        similarity: z.number(),
        eta: z.number(),
        status,
        toolSequence: z.array(z.string()),
        branches: z.array(
          z.object({
            when: z.object({
              tool: z.string(),
              path: z.string(),
              in: z.array(z.string()),
              available: z.literal(true).optional().describe('the condition is that the agent can call tool'),
            }),
            toolSequence: z.array(z.string()),
          }),
        ),
      }),
    ),
    tools: z.array(z.string()),
    context: z.string(),
  },
  compiled: {
    dryRun: z.boolean(),
    action: z.string().describe('add | update | reinforce | supersede | skip'),
    reason: z.string().nullable(),
    skill: z
      .object({
        id: z.string(),
        name: z.string(),
        version: z.string(),
        description: z.string(),
        toolsRequired: z.array(z.string()),
      })
      .passthrough()
      .nullable(),
    skillMd: z.string().nullable(),
    parents: z.object({
      sessions: z.array(z.object({ id: z.string(), goal: z.string(), outcome: z.string() }).passthrough()),
      facts: z.array(z.object({ id: z.string(), text: z.string() }).passthrough()),
    }),
    duplicateOf: z.object({ id: z.string(), name: z.string() }).nullable(),
    cluster: z.string().nullable(),
    leftOut: z
      .array(z.object({ id: z.string(), reason: z.string() }))
      .describe('sessions not used, with why (one still open counts for nothing until it ends)'),
  },
  feedback: { name: z.string(), eta: z.number(), status, utility: z.number(), repeated: z.boolean() },
  listed: {
    skills: z.array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          description: z.string(),
          status,
          enabled: z.boolean(),
          eta: z.number(),
          successCount: z.number(),
          attemptCount: z.number(),
          trialsAttempted: z.number(),
          trialsPassed: z.number(),
          judgedTrials: z
            .number()
            .describe('how many of its trials the outcome judge gave rather than a reported outcome'),
          toolsRequired: z.array(z.string()),
          sourceSessionCount: z
            .number()
            .describe('how many sessions it was learned from (the ids: GET /api/skills/NAME)'),
        })
        .passthrough(),
    ),
  },
  forgottenSession: {
    ref: z.string().describe('the opaque reference the audit record keeps'),
    calls: z.number(),
    skills: z.array(z.string()).describe('skills that keep a forgotten-parent marker'),
  },
  forgottenSkill: { id: z.string(), name: z.string() },
  editedSkill: {
    id: z.string(),
    name: z.string(),
    version: z.string(),
    changed: z
      .boolean()
      .describe('false when nothing was written: an empty text, the text it has, or (revert) no edit'),
    toolSequence: z.array(z.string()).describe('its main path now'),
    warnings: z.array(z.string()),
    redacted: z.array(z.string()).describe('kinds of secret or personal data redacted from the text'),
  },
  renamedSkill: {
    id: z.string(),
    from: z.string(),
    name: z.string(),
    version: z.string(),
    changed: z.boolean().describe('false when it had the name already (a rename asked again)'),
  },
  synthesized: {
    created: z.array(skillRef),
    updated: z.array(skillRef),
    reinforced: z.array(skillRef),
    superseded: z.array(skillRef.extend({ supersedes: z.string() })),
    skipped: z.array(z.object({ cluster: z.string(), reason: z.string() })),
    lookAlike: z
      .array(alikeGroup)
      .optional()
      .describe('sessions alike in their steps, too few to learn from alone (look_alike_sessions lists them)'),
    fallback: z
      .object({ from: z.string(), to: z.string(), reason: z.string() })
      .optional()
      .describe('present when llm.fallback stood in for an unavailable model during the pass'),
    stats: z.object({ newSessions: z.number(), clusters: z.number(), dryRun: z.boolean() }).passthrough(),
  },
  alike: { groups: z.array(alikeGroup) },
};

/** Groups of look-alike sessions with their goals (what users typed) defused: the model reads the structured content too. */
function defusedGroups<G extends { goals: string[] }>(groups: readonly G[]): G[] {
  return groups.map((g) => ({ ...g, goals: g.goals.map((goal) => neutraliseInstructions(goal)) }));
}

/** A tool answer: readable text for the model and the same data as structured content. */
function answer(text: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

/**
 * The `_meta` key of a failed tool call's stable code: `{ error, code }`, as a REST error body (README "Surfaces").
 * Not `structuredContent`: every tool has an outputSchema, and the SDK's own client (1.x) checks an error result's
 * structured content against it too, so a client that listed the tools would get "does not match the tool's output
 * schema" instead of the error.
 */
const ERROR_META = 'skillsmith/error';

/**
 * What a tool whose handler threw answers: a tool error with the message as its text, and the code every surface
 * gives (`errorCodeOf`) under `_meta`. A database that cannot be reached (a PostgreSQL server restarting) or is busy
 * is said as REST says it, with what to do: send the call again later.
 */
function toolError(e: unknown): CallToolResult {
  const code = errorCodeOf(e);
  const message =
    code === 'STORE_UNREACHABLE'
      ? `${unreachableStoreText(e)}; send the call again once it is back`
      : code === 'STORE_BUSY'
        ? `${busyStoreText(e)}: send the call again`
        : e instanceof Error
          ? e.message
          : String(e);
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    _meta: { [ERROR_META]: { error: message, code } },
  };
}

/**
 * The memory's tools. A handler that throws answers a tool error with its code (`toolError`); a call the SDK refuses
 * before any handler runs (an unknown tool, arguments its input schema refuses) is answered as the SDK answers it.
 */
export function registerTools(server: McpServer, memory: Memory, live: LiveSessions): void {
  const register = server.registerTool.bind(server);
  const registerTool = ((name: string, spec: never, handler: (...args: unknown[]) => Promise<CallToolResult>) =>
    register(name, spec, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (e) {
        return toolError(e);
      }
    })) as unknown as typeof server.registerTool;
  registerTool(
    'record_tool_call',
    {
      title: 'Record a tool call',
      description:
        'Store one tool call of the current session as it happens. The first call of a session must carry its goal; ' +
        'omit session_id there to get a new one back, and pass it on every later call.',
      inputSchema: strictArgs({
        session_id: sessionId
          .optional()
          .describe('the session this call belongs to (omit on the first call to start one)'),
        goal: z
          .string()
          .min(1)
          .max(8000)
          .optional()
          .describe('what the agent is trying to do (required on the first call of a session)'),
        tool: z.string().min(1).max(200).describe('name of the tool that was called'),
        args: z.record(z.string(), z.unknown()).optional().describe('the arguments it was called with'),
        result: z.unknown().optional().describe('what it returned (text or JSON; stored capped)'),
        ok: z.boolean().optional().describe('false when the call failed (default: true unless error is given)'),
        error: z.string().max(4000).optional().describe('the error message of a failed call'),
        duration_ms: z.number().int().min(0).optional().describe('how long the call took, in milliseconds'),
        agent_id: z.string().max(200).optional().describe('which agent of a fleet recorded the session'),
      }),
      outputSchema: output.recorded,
      annotations: { readOnlyHint: false, idempotentHint: false },
    },
    async (a) => {
      const id = await live.record({
        sessionId: a.session_id,
        goal: a.goal,
        agentId: a.agent_id,
        tool: a.tool,
        args: a.args,
        result: a.result,
        ok: a.ok,
        error: a.error,
        durationMs: a.duration_ms,
      });
      return answer(`recorded ${a.tool} in session ${id}`, { session_id: id });
    },
  );

  registerTool(
    'end_session',
    {
      title: 'End a session',
      description:
        'Close a session with its outcome. With success or failure, every skill recalled for the session gets a trial.',
      inputSchema: strictArgs({
        session_id: sessionId.describe('the session record_tool_call returned'),
        outcome: z
          .enum(['success', 'failure', 'unknown'])
          .describe('whether the task was done (unknown: not known yet; report it later over REST or the CLI)'),
        reward: z.number().min(0).max(1).optional().describe('optional reward in [0,1]'),
      }),
      outputSchema: output.ended,
      annotations: { readOnlyHint: false },
    },
    async (a) => {
      await live.end(a.session_id, a.outcome, a.reward);
      return answer(`session ${a.session_id} ended: ${a.outcome}`, { session_id: a.session_id, outcome: a.outcome });
    },
  );

  registerTool(
    'recall_skills',
    {
      title: 'Recall skills for a goal',
      description:
        'The procedures learned from past runs that fit this goal, as a context pack to put in the prompt, with their ids. ' +
        'Pass session_id so the outcome of the session counts as a trial of the skills served, and tools (the names ' +
        'of the tools you have) to get only skills whose steps you can take.',
      inputSchema: strictArgs({
        goal: z
          .string()
          .min(1)
          .max(8000)
          .describe("the task in the user's words (the request, or the goal you work on)"),
        top_k: z.number().int().min(1).max(10).optional().describe('at most this many skills (default 2)'),
        session_id: sessionId
          .optional()
          .describe(
            'the session this recall serves: its outcome becomes their trial. A new id starts the session with this goal; record its calls under the same id',
          ),
        tools: z
          .array(z.string().min(1).max(500))
          .min(1)
          .max(2000)
          .optional()
          .describe(
            'the names of the tools you have (a name ending in * stands for every tool it starts): only skills whose steps use none other come back',
          ),
      }),
      outputSchema: output.recalled,
      annotations: { readOnlyHint: false },
    },
    async (a) => {
      // A recall for a session is its trial when it ends: a new id starts the session with this goal (a recall at the
      // start of a task comes before any call); a stored one must still be running.
      // The recorder recalls for its own session (read once, when it opened), as the library's recorder does.
      const recorder = a.session_id ? await live.begin(a.session_id, a.goal) : null;
      const opts = { topK: a.top_k, tools: a.tools };
      const skills = recorder ? await recorder.recall(a.goal, opts) : await memory.recall(a.goal, opts);
      const context = memory.formatContext(skills);
      const data = {
        skill_ids: skills.map((s) => s.id),
        skills: skills.map((s) => ({
          id: s.id,
          name: s.name,
          similarity: s.similarity,
          eta: s.eta,
          status: s.status,
          toolSequence: s.toolSequence,
          branches: s.branches,
        })),
        tools: memory.toolsFor(skills),
        context,
      };
      // Nothing served: which skill came nearest, and the threshold it missed (as the CLI says it).
      const said = skills.length
        ? `${context}\nSkill ids: ${data.skill_ids.join(', ')}`
        : noMatch(await memory.nearest(a.goal, { tools: a.tools }));
      return answer(said, data);
    },
  );

  registerTool(
    'synthesize',
    {
      title: 'Learn from the recorded sessions',
      description:
        'Run a synthesis pass over the sessions recorded since the last one: groups of similar successful sessions ' +
        'become skills (or update, reinforce or supersede the ones they match). Call it after end_session when ' +
        'the server does not learn by itself (synthesis.auto). dry_run shows what would change and writes nothing.',
      inputSchema: strictArgs({ dry_run: z.boolean().optional().describe('show what a pass would do; write nothing') }),
      outputSchema: output.synthesized,
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    async (a) => {
      const report = await memory.synthesize({ dryRun: a.dry_run ?? false });
      const lines = await synthesisLines(report, memory);
      if (learnedNothing(report)) lines.push('Nothing new to learn.');
      const data = stableReport(report);
      return answer(lines.join('\n'), data.lookAlike ? { ...data, lookAlike: defusedGroups(data.lookAlike) } : data);
    },
  );

  registerTool(
    'compile_skill',
    {
      title: 'Compile a skill',
      description:
        'Distil one skill from the given sessions, or from the stored sessions whose goals match a cue. A dry run (nothing ' +
        'written) unless commit is true; the answer shows the SKILL.md and what would happen (add, update, supersede, skip).',
      inputSchema: strictArgs({
        session_ids: z
          .array(sessionId)
          .min(1)
          .max(500)
          .optional()
          .describe('the sessions to learn from (ids from record_tool_call or look_alike_sessions)'),
        cue: z
          .string()
          .min(1)
          .max(4000)
          .optional()
          .describe('a goal-like text: the nearest stored cluster provides the sessions'),
        commit: z.boolean().optional().describe('write the skill (default false: dry run)'),
      }),
      outputSchema: output.compiled,
      annotations: { readOnlyHint: false },
    },
    async (a) => {
      if (!a.session_ids?.length && !a.cue) throw new InputError('compile_skill needs session_ids or cue');
      const r = await memory.skills.compile({
        sessions: a.session_ids,
        cue: a.cue,
        commit: a.commit ?? false,
        actor: 'mcp',
      });
      const head =
        r.action === 'skip'
          ? `No skill: ${r.reason}`
          : `${r.dryRun ? 'Dry run (nothing written; pass commit: true)' : 'Committed'}: ${r.action} ${r.skill?.name}` +
            (r.duplicateOf ? ` (existing skill ${r.duplicateOf.name})` : '');
      // The parents' goals are what users typed: defused for the model that reads them, as everywhere else.
      const parents = {
        ...r.parents,
        sessions: r.parents.sessions.map((p) => ({ ...p, goal: neutraliseInstructions(p.goal) })),
      };
      const said = [head, ...r.leftOut.map((l) => `Left out ${l.id}: ${l.reason}`)].join('\n');
      return answer(r.skillMd ? `${said}\n\n${r.skillMd}` : said, { ...r, parents });
    },
  );

  registerTool(
    'skill_feedback',
    {
      title: 'Give feedback on a skill',
      description:
        "A trial result (pass/fail), a thumbs up/down, or a reward in [0,1] for a skill; it moves the skill's estimated success rate (eta) and its status.",
      inputSchema: strictArgs({
        skill: z.string().min(1).max(200).describe('skill name or id'),
        signal: z
          .enum(['pass', 'fail', 'up', 'down', 'reward'])
          .describe('pass/fail: a trial of following it; up/down: a thumbs up or down; reward: a score in reward'),
        reward: z.number().min(0).max(1).optional().describe('required when signal is reward'),
        session_id: sessionId.optional().describe('the session the skill was used in, if any (kept with the feedback)'),
        feedback_id: z
          .string()
          .min(1)
          .max(MAX_FEEDBACK_ID_CHARS)
          .optional()
          .describe(
            'an id of your choosing for this feedback: sent again with the same id (a retry) it is not counted twice',
          ),
      }),
      outputSchema: output.feedback,
      annotations: { readOnlyHint: false },
    },
    async (a) => {
      if (a.signal === 'reward' && a.reward === undefined)
        throw new InputError('signal "reward" needs reward, a number in [0,1]');
      const signal = a.signal === 'reward' ? `reward=${a.reward}` : a.signal;
      const { before, after, repeated } = await memory.feedback(a.skill, signal, {
        sessionId: a.session_id,
        feedbackId: a.feedback_id,
        actor: 'mcp',
      });
      return answer(
        repeated
          ? `${after.name}: this feedback was given before; not counted again (estimated success ${after.eta.toFixed(2)}, status ${after.status})`
          : `${after.name}: estimated success ${before.eta.toFixed(2)} -> ${after.eta.toFixed(2)}, status ${after.status}`,
        {
          name: after.name,
          eta: after.eta,
          status: after.status,
          utility: after.utility,
          repeated,
        },
      );
    },
  );

  registerTool(
    'list_skills',
    {
      title: 'List skills',
      description:
        'The skills in memory with status, estimated success rate (eta), track record and tools. Read one with the resource skill://<name>.',
      inputSchema: strictArgs({
        status: z
          .array(z.enum(['probationary', 'active', 'retired']))
          .optional()
          .describe('only skills with one of these statuses (default: every status)'),
        corpus: z
          .enum(['internal', 'external'])
          .optional()
          .describe('internal: learned here; external: imported (default: both)'),
        include_superseded: z.boolean().optional().describe('also skills a newer one replaced (default false)'),
      }),
      outputSchema: output.listed,
      annotations: { readOnlyHint: true },
    },
    async (a) => {
      const all = await memory.skills.list({ corpus: a.corpus, includeSuperseded: a.include_superseded });
      const skills = all.filter((s) => !a.status || a.status.includes(s.status));
      const lines = skills.map(
        (s) =>
          `${s.name} [${s.status}${s.enabled ? '' : ', disabled'}${s.corpus === 'external' ? ', imported' : ''}] estimated success ${s.eta.toFixed(2)}, ${s.successCount}/${s.attemptCount} successful followers${s.trialsAttempted ? `, ${s.trialsPassed}/${s.trialsAttempted} trials passed${s.judgedTrials ? ` (${s.judgedTrials} judged)` : ''}` : ''}: ${s.description}`,
      );
      // A filter that matched none says so: the memory may hold other skills.
      const none = all.length
        ? `None of the ${all.length} skill(s) has the status ${a.status?.join(' or ')}.`
        : 'No skills yet.';
      return answer(lines.length ? lines.join('\n') : none, { skills: skills.map(skillSummaryJson) });
    },
  );

  registerTool(
    'look_alike_sessions',
    {
      title: 'Sessions alike, not yet one skill',
      description:
        'Successful sessions that ran the same steps but were asked for in words too far apart to group, each too few ' +
        'to learn from alone (largest group first). If a group is one task, compile_skill with its session_ids learns it.',
      inputSchema: strictArgs({}),
      outputSchema: output.alike,
      annotations: { readOnlyHint: true },
    },
    async () => {
      // Goals are what users typed: quoted as data, with any instruction in them defused, for the model that reads this.
      const groups = defusedGroups(await memory.synthesis.lookAlike());
      const lines = groups.map(
        (g) =>
          `${g.sessions.length} sessions ran ${g.steps.map((st) => st.command ?? st.tool).join(', ')}: ` +
          `${g.goals.map((goal) => JSON.stringify(goal)).join('; ')} (session_ids: ${g.sessions.join(', ')})`,
      );
      return answer(lines.length ? lines.join('\n') : 'No sessions wait alone: nothing alike is left unlearned.', {
        groups,
      });
    },
  );

  registerTool(
    'forget_session',
    {
      title: 'Forget a session',
      description:
        'Delete a recorded session for good: its goal, tool calls, results and recalls. Skills learned from it stay, marked as having ' +
        'a forgotten parent; an audit record keeps only an opaque reference. Use for privacy requests and mistakes.',
      inputSchema: strictArgs({ session_id: sessionId.describe('the session to delete') }),
      outputSchema: output.forgottenSession,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async (a) => {
      const gone = await memory.sessions.forget(a.session_id, { actor: 'mcp' });
      live.drop(a.session_id);
      if (!gone) throw new NotFoundError(`no session "${a.session_id}"`);
      return answer(
        `forgot session ${a.session_id} (${gone.calls} calls)` +
          (gone.skills.length ? `; ${gone.skills.join(', ')} keep a forgotten-parent marker` : ''),
        { ...gone },
      );
    },
  );

  registerTool(
    'rename_skill',
    {
      title: 'Rename a skill',
      description:
        'Give a learned skill another name (1-64 of a-z, 0-9 and "-", not taken): a new version says it in its title and description, and later passes keep it. Its track record and lineage stay.',
      inputSchema: strictArgs({
        skill: z.string().min(1).max(200).describe('skill name or id'),
        name: z.string().min(1).max(200).describe('the new name'),
        force: z.boolean().optional().describe('take a name another skill had before a person renamed it'),
      }),
      outputSchema: output.renamedSkill,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async (a) => {
      const res = await memory.skills.rename(a.skill, a.name, { actor: 'mcp', force: a.force });
      if (!res) throw new NotFoundError(await noSkillNamed(memory, a.skill));
      const said = res.changed
        ? `renamed ${res.from} to ${res.skill.name} (version ${res.skill.version})`
        : `${res.skill.name} has that name already: nothing changed`;
      return answer(said, {
        id: res.skill.id,
        from: res.from,
        name: res.skill.name,
        version: res.skill.version,
        changed: res.changed,
      });
    },
  );

  registerTool(
    'edit_skill',
    {
      title: "Correct a skill's SKILL.md",
      description:
        'Replace a learned skill\'s SKILL.md with a corrected one (the whole text, the skill\'s own name; secrets are redacted): a new version, its procedure the tools its "## Steps" call ("1. Call `tool` ..."). Later passes keep the text and record when the sessions suggest another procedure. revert: true hands it back to the learner (the text it last learned) instead.',
      inputSchema: strictArgs({
        skill: z.string().min(1).max(200).describe('skill name or id'),
        skill_md: z.string().max(65_536).optional().describe('the whole corrected SKILL.md (not with revert)'),
        revert: z.boolean().optional().describe('hand the skill back to the learner instead of editing it'),
      }),
      outputSchema: output.editedSkill,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (a) => {
      if (a.revert === (a.skill_md !== undefined))
        throw new InputError('give either skill_md (the corrected SKILL.md) or revert: true');
      const res = a.revert
        ? await memory.skills.revertEdit(a.skill, { actor: 'mcp' })
        : await memory.skills.edit(a.skill, a.skill_md!, { actor: 'mcp' });
      if (!res) throw new NotFoundError(await noSkillNamed(memory, a.skill));
      const s = res.skill;
      const said = !res.changed
        ? `${s.name}: nothing changed (${res.why === 'empty' ? 'the text is empty' : res.why === 'unchanged' ? 'the text is the one it has' : 'no person edited it'})`
        : a.revert
          ? `${s.name} is the learner's again (version ${s.version}): ${s.toolSequence.join(' > ')}`
          : `${s.name} edited (version ${s.version}): ${s.toolSequence.join(' > ')}; later passes keep the text`;
      const notes = [...res.warnings, ...(res.redacted.length ? [`redacted: ${res.redacted.join(', ')}`] : [])];
      return answer(notes.length ? `${said}\n${notes.join('\n')}` : said, {
        id: s.id,
        name: s.name,
        version: s.version,
        changed: res.changed,
        toolSequence: s.toolSequence,
        warnings: res.warnings,
        redacted: res.redacted,
      });
    },
  );

  registerTool(
    'forget_skill',
    {
      title: 'Forget a skill',
      description:
        'Delete a skill for good (its SKILL.md versions, lineage and track record); it is never recalled again. To stop ' +
        'recalling it but keep it, disable it instead (skillsmith skills disable NAME, or PATCH /api/skills/NAME).',
      inputSchema: strictArgs({ skill: z.string().min(1).max(200).describe('skill name or id') }),
      outputSchema: output.forgottenSkill,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async (a) => {
      const gone = await memory.skills.forget(a.skill, { actor: 'mcp' });
      if (!gone) throw new NotFoundError(await noSkillNamed(memory, a.skill));
      return answer(`forgot skill ${gone.name}`, { ...gone });
    },
  );
}
