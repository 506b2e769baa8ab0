import type { Admission } from '../../domain/admit.js';
import { type Branch, doneOf, stepsOf, withBranches, withToolsetSteps } from '../../domain/branches.js';
import type { ToolsetSplit } from '../../domain/toolsets.js';
import { EXEMPLAR_SOURCES } from '../../domain/exemplars.js';
import type { EvidenceTrace } from '../../domain/evidence.js';
import { normalizeGoal } from '../../domain/normalize-goal.js';
import { redactText } from '../../domain/redact.js';
import { tieredWords } from '../../domain/verify.js';
import { withoutHiddenText } from '../../domain/untrusted-text.js';
import { toDescription, toSkillName } from '../../domain/skill-md/index.js';
import type { Draft, Session } from '../../domain/types.js';
import { MalformedDraftError } from '../../errors/malformed-draft-error.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { uniqueName } from '../../domain/skill-naming.js';
import { summarizeAdmission } from './admit.js';
import type { ToolsetBranch } from './toolset.js';

/**
 * A goal as the distiller reads it: redacted, entities as placeholders, but quoted words kept as words (a
 * phone "showing 'No Service'" says what is broken).
 */
function wordingText(text: string): string {
  return redactText(normalizeGoal(text.replace(/["“”`]/g, "'")));
}

/**
 * Distil: the configured distiller writes a draft from the admitted sessions and their evidence. Returns the
 * draft with what it was learned from, or why there is none (SKIP, or a model answer that is not a draft).
 * Any other error (the model is unavailable) stops the pass.
 */
export async function distilDraft(
  deps: PipelineDeps,
  input: GroupInput,
  admission: Admission,
  evidence: EvidenceTrace[],
  toolset?: ToolsetBranch,
): Promise<DraftMaterial | { skipped: string }> {
  const own = input.ownSkillId ? (input.skills.get(input.ownSkillId) ?? null) : null;
  // What the distiller reads of one side of the group: its admitted sessions, and the failed ones beside them.
  const sideOf = (side: Admission, sessions: readonly Session[]) => ({
    clusterId: input.clusterId,
    spans: side.spans,
    successes: side.successfulFollowers,
    failures: sessions.filter((s) => s.outcome === 'failure'),
    goals: side.successfulFollowers.map((s) => wordingText(s.goal)),
    cues: side.successfulFollowers.flatMap((s) => (s.cue ? [wordingText(s.cue)] : [])),
    goalWordWeight: input.goalWordWeight,
    toolWeight: input.toolWeight,
    toolShare: input.toolShare,
  });
  const sessions = input.sessions.length;
  let raw: Draft | null;
  let kitDraft: Draft | null = null;
  try {
    // A group parted by a toolset: the branch's side is written as a procedure of its own, whose steps the skill
    // states under the branch; the procedure is the other side's, and the skill is learned from both.
    if (toolset)
      kitDraft = await deps.distiller.distil({
        ...sideOf(toolset.admission, toolset.kit),
        evidence: toolset.evidence,
        takenNames: new Set(),
        stats: {
          successes: toolset.admission.successfulFollowers.length,
          succeeded: toolset.admission.succeeded,
          followers: toolset.admission.followers.length,
          sessions,
        },
      });
  } catch (e) {
    if (!MalformedDraftError.isInstance(e)) throw e;
    // The branch's side gave no usable draft: the procedure is learned from its own side alone.
  }
  const kit = kitDraft?.toolSequence.length ? toolset?.admission : undefined;
  const successes = [...admission.successfulFollowers, ...(kit?.successfulFollowers ?? [])];
  try {
    raw = await deps.distiller.distil({
      ...sideOf(admission, toolset?.base ?? input.sessions),
      evidence,
      takenNames: input.skills.names(own?.id),
      // The skill's evidence line counts the sessions it is learned from: both sides.
      stats: {
        successes: successes.length,
        succeeded: admission.succeeded + (kit?.succeeded ?? 0),
        followers: admission.followers.length + (kit?.followers.length ?? 0),
        sessions,
      },
    });
  } catch (e) {
    // A model answer that is not a usable draft: skip this cluster, the pass goes on (SPEC "Off-states").
    if (MalformedDraftError.isInstance(e)) return { skipped: `distiller output rejected: ${e.reason}` };
    throw e; // LlmUnavailableError (and anything else) stops the pass
  }
  deps.log.child('distiller').debug(raw ? 'draft' : 'SKIP', {
    cluster: input.clusterId,
    distiller: deps.distiller.id,
    name: raw?.name,
    steps: raw?.toolSequence.length,
  });
  if (!raw) return { skipped: 'distiller returned SKIP' };
  // Defence in depth: whatever a distiller wrote, no secret or personal datum, and no character a reader cannot
  // see (a tool result's bidi override quoted in "Done when"), reaches a stored skill.
  const clean = (t: string) => withoutHiddenText(redactText(t));
  const written: Draft = { ...raw, whenToUse: clean(raw.whenToUse), body: clean(raw.body) };
  const draft =
    toolset && kit && kitDraft
      ? withToolsetBranch(written, { ...kitDraft, body: clean(kitDraft.body) }, toolset.split)
      : written;
  const denied = new Set([...admission.denied, ...(toolset?.admission.denied ?? [])].map((d) => d.sessionId));
  return {
    draft,
    evidence: toolset && kit ? [...evidence, ...toolset.evidence] : evidence,
    counts: {
      successCount: admission.succeeded + (kit?.succeeded ?? 0),
      attemptCount: admission.followers.length + (kit?.followers.length ?? 0),
      support: admission.spans.length + (kit?.spans.length ?? 0),
    },
    sourceSessions: successes.map((s) => s.id),
    admissionSummary: summarizeAdmission(admission),
    materialTools: new Set(input.sessions.flatMap((s) => s.calls.map((c) => c.tool))),
    materialText: once(() => redactText(materialLines(input).join('\n'))),
    materialWords: once(() =>
      tieredWords(
        () => input.sessions.flatMap((s) => s.calls),
        () => materialLines(input),
      ),
    ),
    // What people asked when they wanted this: every successful session of the group, the path it took aside (one
    // admission turned away, a goal that is a JSON dump or a session of reasoning calls, says nothing of it).
    exemplarTexts: input.sessions
      .filter((s) => s.outcome === 'success' && !denied.has(s.id))
      .slice(-EXEMPLAR_SOURCES)
      .flatMap((s) => [s.goal, ...(s.cue ? [s.cue] : [])].map((text) => ({ text, sessionId: s.id }))),
  };
}

/**
 * A draft with the branch toward the sessions whose agents held a toolset, written from the procedure the
 * distiller drew from those sessions: "If you can call `tool` yourself, follow: ..." in its `## Branches` section
 * (whatever branches the distiller wrote give way to it: those on a lookup are the branch stage's), and that
 * procedure's steps under it, with what its switches should show; its tools among those the skill requires. The
 * condition's tool is the first of the path's tools of the toolset that every session of that side called, else
 * the split's own (a check the path leaves out, after the fix).
 */
function withToolsetBranch(draft: Draft, kit: Draft, split: ToolsetSplit): Draft {
  const kitTools = new Set(split.tools);
  const tool = kit.toolSequence.find((t) => kitTools.has(t) && split.calledByAll.includes(t)) ?? split.tool;
  const branch: Branch = { when: { tool, path: '', in: [], available: true }, toolSequence: kit.toolSequence };
  return {
    ...draft,
    body: withToolsetSteps(withBranches(draft.body, [branch], String), tool, stepsOf(kit.body), doneOf(kit.body)),
    toolsRequired: [...new Set([...draft.toolsRequired, tool, ...kit.toolsRequired])],
  };
}

/** A fact-only group: the facts are the procedure (`kind: heuristic`), and they are the evidence too. */
export function factDraft(input: GroupInput): DraftMaterial {
  const facts = input.facts ?? [];
  const texts = facts.map((f) => redactText(f.text).replace(/\s+/g, ' ').trim());
  const cue = input.cue ? redactText(input.cue) : texts[0];
  const title = cue.replace(/[<>]/g, '').split(/\s+/).slice(0, 8).join(' ');
  const name = uniqueName(toSkillName(title), input.skills.names(input.ownSkillId ?? undefined));
  const body = [
    `# ${title.charAt(0).toUpperCase()}${title.slice(1)}`,
    '',
    `Compiled from ${facts.length} fact(s).`,
    '',
    '## Steps',
    '',
    ...texts.map((t, i) => `${i + 1}. ${t}`),
    '',
    '## Edge cases',
    '',
    '- These are facts, not an observed procedure: check them against the current situation before acting.',
  ].join('\n');
  const draft: Draft = {
    name,
    whenToUse: toDescription(`Use when ${cue}`),
    toolsRequired: [],
    toolSequence: [],
    body,
    kind: 'heuristic',
    steps: [],
  };
  const evidence = facts.map((f, i) => ({ sessionId: f.id, outcome: 'unknown' as const, text: texts[i], tools: [] }));
  return {
    draft,
    evidence,
    counts: { successCount: 0, attemptCount: 0, support: facts.length },
    sourceSessions: [],
    materialTools: new Set(),
    exemplarTexts: [],
  };
}

/** A value computed on first use and kept. */
/** What the group's sessions show, a line a goal or a call: the material a draft may quote or name. */
function materialLines(input: GroupInput): string[] {
  return input.sessions.flatMap((s) => [
    s.goal,
    ...s.calls.map((c) => `${c.tool} ${JSON.stringify(c.args)} ${c.result} ${c.error ?? ''}`),
  ]);
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
