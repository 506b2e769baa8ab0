import type { Admission } from '../../domain/admit.js';
import { EXEMPLAR_SOURCES } from '../../domain/exemplars.js';
import type { EvidenceTrace } from '../../domain/evidence.js';
import { normalizeGoal } from '../../domain/normalize-goal.js';
import { redactText } from '../../domain/redact.js';
import { tieredWords } from '../../domain/verify.js';
import { withoutHiddenText } from '../../domain/untrusted-text.js';
import { toDescription, toSkillName } from '../../domain/skill-md/index.js';
import type { Draft } from '../../domain/types.js';
import { MalformedDraftError } from '../../errors/malformed-draft-error.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { uniqueName } from '../../domain/skill-naming.js';
import { summarizeAdmission } from './admit.js';

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
): Promise<DraftMaterial | { skipped: string }> {
  const own = input.ownSkillId ? (input.skills.get(input.ownSkillId) ?? null) : null;
  let raw: Draft | null;
  try {
    raw = await deps.distiller.distil({
      clusterId: input.clusterId,
      spans: admission.spans,
      successes: admission.successfulFollowers,
      failures: input.sessions.filter((s) => s.outcome === 'failure'),
      goals: admission.successfulFollowers.map((s) => wordingText(s.goal)),
      cues: admission.successfulFollowers.flatMap((s) => (s.cue ? [wordingText(s.cue)] : [])),
      evidence,
      goalWordWeight: input.goalWordWeight,
      toolWeight: input.toolWeight,
      toolShare: input.toolShare,
      takenNames: input.skills.names(own?.id),
      stats: {
        successes: admission.successfulFollowers.length,
        succeeded: admission.succeeded,
        followers: admission.followers.length,
        sessions: input.sessions.length,
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
  const draft: Draft = { ...raw, whenToUse: clean(raw.whenToUse), body: clean(raw.body) };
  return {
    draft,
    evidence,
    counts: {
      successCount: admission.succeeded,
      attemptCount: admission.followers.length,
      support: admission.spans.length,
    },
    sourceSessions: admission.successfulFollowers.map((s) => s.id),
    admissionSummary: summarizeAdmission(admission),
    materialTools: new Set(input.sessions.flatMap((s) => s.calls.map((c) => c.tool))),
    materialText: once(() => redactText(materialLines(input).join('\n'))),
    materialWords: once(() =>
      tieredWords(
        () => input.sessions.flatMap((s) => s.calls),
        () => materialLines(input),
      ),
    ),
    exemplarTexts: admission.successfulFollowers
      .slice(-EXEMPLAR_SOURCES)
      .flatMap((s) => [s.goal, ...(s.cue ? [s.cue] : [])].map((text) => ({ text, sessionId: s.id }))),
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
