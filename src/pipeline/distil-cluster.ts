import { createHash, randomUUID } from 'node:crypto';
import type { SkillsmithConfig } from '../config/config.js';
import { admitCluster, seedEta, type Admission } from '../domain/admit.js';
import { buildConsensus } from '../domain/consensus.js';
import { gatherEvidence, type EvidenceTrace } from '../domain/evidence.js';
import { normalizeGoal } from '../domain/normalize-goal.js';
import { newSkill } from '../domain/new-skill.js';
import { findSecrets, redactText } from '../domain/redact.js';
import { bumpVersion, defaultReconcileRules, reconcile, sameSkill, type Decision } from '../domain/reconcile.js';
import { collapseRepeats, sequenceF1 } from '../domain/sequence.js';
import { serializeSkillMd, toDescription, toSkillName, validateSkillMd } from '../domain/skill-md/index.js';
import { detectSpan } from '../domain/spans.js';
import type { Draft, Fact, Session, Skill } from '../domain/types.js';
import { verifyDraft } from '../domain/verify.js';
import { chooseExemplars, packExemplars, unpackExemplars } from '../domain/exemplars.js';
import { embedTexts } from './embed-texts.js';
import type { Distiller } from '../distillers/distiller.js';
import { MalformedDraftError } from '../llm/errors/malformed-draft-error.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import { VectorIndex } from '../vector/vector-index.js';
import type { Store, SkillWrite } from '../store/store.js';
import type { Logger } from '../support/log.js';

export interface PipelineDeps {
  store: Store;
  embedder: Embedder;
  distiller: Distiller;
  config: SkillsmithConfig;
  thresholds: EmbedderThresholds;
  now: () => Date;
  log: Logger;
}

/** What one group of sessions (a cluster, or an explicit compile) produced. */
export interface GroupOutcome {
  clusterId: string;
  action: Decision['action'] | 'skip';
  reason?: string;
  skill?: Skill;
  draft?: Draft;
  /** For a decision against an existing skill: which one. */
  target?: { id: string; name: string };
  admission?: Pick<Admission, 'successRate' | 'followers' | 'successfulFollowers' | 'denied'>;
}

export interface GroupInput {
  namespace: string;
  clusterId: string;
  sessions: Session[];
  /** Recall prototype of the group: normalised mean of its goal embeddings. */
  goalCentroid: Float32Array;
  /** The skill this cluster already produced, if any. */
  ownSkillId: string | null;
  goalWordWeight: (w: string) => number;
  toolWeight: (t: string) => number;
  /** Live internal skills of the namespace, for duplicate detection and name clashes. */
  skills: SkillCatalog;
  dryRun: boolean;
  actor: string;
  /** Explicit compile relaxes the counts (a single session or a cue is admissible); deny rules always apply. */
  admission?: { minOccurrences?: number; minSuccessRate?: number };
  /** Semantic parents: facts the skill rests on (fact-only groups give `heuristic` skills). */
  facts?: Fact[];
  /** The cue of a cue-directed compile (titles fact-only skills). */
  cue?: string;
  /** False for groups that are not a stored cluster (explicit compile from session ids). */
  linkCluster?: boolean;
}

interface Prepared {
  draft: Draft;
  evidence: EvidenceTrace[];
  counts: { successCount: number; attemptCount: number; support: number };
  sourceSessions: string[];
  admissionSummary?: GroupOutcome['admission'];
  /** Every tool the group's sessions called: a draft may name only these. */
  materialTools: Set<string>;
  /** Goals and cues of the sessions the skill is learned from: its recall exemplars come from these. */
  exemplarTexts: string[];
}

/** The live internal skills of a namespace during a pass, with a vector index over their embeddings. */
export class SkillCatalog {
  private readonly byId = new Map<string, Skill>();
  private readonly historic = new Set<string>();
  private index: VectorIndex;

  constructor(private readonly dims: number, skills: Skill[], private readonly embedderId: string) {
    this.index = new VectorIndex(dims);
    for (const s of skills) this.put(s);
  }

  put(skill: Skill) {
    // A superseded skill keeps its name in the history (explain, versions): no new skill may take it.
    if (skill.supersededBy) this.historic.add(skill.name);
    if (skill.supersededBy || skill.corpus !== 'internal') {
      this.byId.delete(skill.id);
      this.index.remove(skill.id);
      return;
    }
    this.byId.set(skill.id, skill);
    if (skill.embedding && skill.embedderId === this.embedderId && skill.embedding.length === this.dims) this.index.add(skill.id, skill.embedding);
  }

  remove(id: string) {
    const gone = this.byId.get(id);
    if (gone) this.historic.add(gone.name);
    this.byId.delete(id);
    this.index.remove(id);
  }

  get(id: string): Skill | undefined {
    return this.byId.get(id);
  }

  /** The live internal skills, in insertion order. */
  live(): Skill[] {
    return [...this.byId.values()];
  }

  names(except?: string): Set<string> {
    const own = except ? this.byId.get(except)?.name : undefined;
    return new Set([...[...this.byId.values()].filter((s) => s.id !== except).map((s) => s.name), ...[...this.historic].filter((n) => n !== own)]);
  }

  neighbours(vector: Float32Array, minScore: number, exclude?: string): { skill: Skill; similarity: number }[] {
    return this.index
      .search(vector, 5, { minScore, filter: (id) => id !== exclude })
      .map((h) => ({ skill: this.byId.get(h.id)!, similarity: h.score }));
  }
}

/**
 * admit -> evidence -> distil -> verify -> reconcile -> persist + lineage, for one group of sessions.
 * The synthesis pass calls it per dirty cluster; this is the only code path that writes a learned skill.
 */
export async function distilGroup(deps: PipelineDeps, input: GroupInput): Promise<GroupOutcome> {
  const log = deps.log.child('pass');
  const skip = (reason: string, extra: Partial<GroupOutcome> = {}): GroupOutcome => {
    log.info('cluster skipped', { cluster: input.clusterId, reason });
    return { clusterId: input.clusterId, action: 'skip', reason, ...extra };
  };
  const linked = input.linkCluster !== false;
  const own = input.ownSkillId ? (input.skills.get(input.ownSkillId) ?? null) : null;

  const prepared = input.sessions.length === 0 && input.facts?.length ? factDraft(input) : await episodicDraft(deps, input, skip);
  if ('action' in prepared) return prepared;
  const { draft, evidence, counts, sourceSessions, admissionSummary, materialTools, exemplarTexts } = prepared;

  const license = deps.config.license;
  const verdict = verifyDraft(draft, evidence, {
    minCoverage: 0.5,
    minResonance: 0.5,
    validateSkillMd: (d) => validateSkillMd(renderSkillMd(d, { license, version: '1.0.0', id: 'x', sourceSessions: [], clusterId: input.clusterId, learnedBy: deps.distiller.id })).errors,
  }, materialTools);
  if (!verdict.ok) {
    deps.log.child('verifier').warn('verification failed', { cluster: input.clusterId, reasons: verdict.reasons });
    if (!input.dryRun) {
      await deps.store.appendEvent(input.namespace, 'skill.verification_failed', null, { cluster: input.clusterId, name: draft.name, reasons: verdict.reasons }, deps.now().toISOString());
    }
    return skip(`verification failed: ${verdict.reasons.join('; ')}`, { draft, admission: admissionSummary });
  }

  // The recall vector: what the cluster's goals have in common, plus the words of the procedure itself, so
  // that a short request ("exchange my keyboard") meets a skill learned from long persona-style goals.
  const embedding = await skillEmbedding(deps.embedder, input.goalCentroid, draft);
  const exemplars = exemplarTexts.length ? packExemplars(chooseExemplars(await embedTexts(deps.store, deps.embedder, exemplarTexts))) : null;
  // A skill is this cluster's own only if it was learned from it; a skill another cluster reinforced is a
  // neighbour: a weaker variant never rewrites it (no flip-flopping between two clusters' procedures).
  const mine = own && own.clusterId === input.clusterId ? own : null;
  // Candidates for consolidation: any live skill as related as a recall match (the recall threshold); reconcile
  // then keeps only those that are the same procedure (shared action, overlapping tools), so one task kind
  // split over several clusters still ends as one skill, and a look-alike with another action stays apart.
  // An explicit compile from chosen sessions is a person's request for this skill: only a true duplicate
  // (the duplicate threshold) is reinforced instead.
  const bar = linked ? Math.min(deps.thresholds.recall, deps.thresholds.duplicate) : deps.thresholds.duplicate;
  const neighbours = mine ? [] : own ? [{ skill: own, similarity: 1 }] : input.skills.neighbours(embedding, bar);
  const decision = reconcile(
    { toolSequence: draft.toolSequence, successes: counts.successCount, followers: counts.attemptCount },
    mine,
    neighbours,
    { ...defaultReconcileRules, toolWeight: input.toolWeight },
  );
  const at = deps.now().toISOString();
  const base = {
    namespace: input.namespace,
    corpus: 'internal' as const,
    kind: draft.kind,
    embedderId: deps.embedder.id,
    embedding,
    exemplars,
    clusterId: linked ? input.clusterId : null,
  };

  let skill: Skill;
  let supersedes: string | undefined;
  const target = decision.action === 'add' ? undefined : decision.target;
  if (decision.action === 'add' || decision.action === 'supersede') {
    const id = `sk_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const version = decision.action === 'add' ? '1.0.0' : bumpVersion(decision.target.version, 'major');
    // A superseding skill of the same cluster keeps the name people know; one from another cluster is named
    // by its own draft (its title and description say what it does), with the lineage in supersedes.
    const keep = decision.action === 'supersede' && decision.target.clusterId === input.clusterId;
    // A new name is free among every live skill but the one it replaces (the draft was named before reconcile
    // chose its target, and a neighbour it did not merge with may hold that name).
    const taken = input.skills.names(decision.action === 'supersede' ? decision.target.id : undefined);
    const name = keep ? decision.target.name : taken.has(draft.name) ? uniqueName(draft.name, taken) : draft.name;
    const named = { ...draft, name };
    skill = newSkill(at, {
      ...base,
      id,
      name,
      description: draft.whenToUse,
      body: draft.body,
      skillMd: renderSkillMd(named, { license, version, id, sourceSessions, clusterId: input.clusterId, learnedBy: deps.distiller.id }),
      version,
      toolsRequired: draft.toolsRequired,
      toolSequence: draft.toolSequence,
      ...counts,
      // Seeded from the evidence (Beta posterior over the followers): thin support starts lower; trials do the rest.
      eta: seedEta(counts.successCount, counts.attemptCount),
      sourceSessions,
    });
    supersedes = decision.action === 'supersede' ? decision.target.id : undefined;
  } else if (decision.action === 'update') {
    const t = decision.target;
    const version = bumpVersion(t.version, 'minor');
    const named = { ...draft, name: t.name };
    skill = {
      ...t,
      ...base,
      description: draft.whenToUse,
      body: draft.body,
      skillMd: renderSkillMd(named, { license, version, id: t.id, sourceSessions, clusterId: input.clusterId, learnedBy: deps.distiller.id }),
      version,
      toolsRequired: draft.toolsRequired,
      toolSequence: draft.toolSequence,
      ...counts,
      updatedAt: at,
    };
  } else {
    const t = decision.target;
    // Its own cluster grew: its recall vector follows the cluster. Another group's support leaves it alone.
    const ownGrowth = t.clusterId === input.clusterId && linked;
    skill = {
      ...t,
      embedding: ownGrowth || !t.embedding || t.embedderId !== deps.embedder.id ? embedding : t.embedding,
      // Its own cluster's exemplars follow the cluster; another group's support adds its wordings to them.
      exemplars: ownGrowth || !t.exemplars || t.embedderId !== deps.embedder.id ? exemplars : mergeExemplars(t.exemplars, exemplars, deps.embedder.dimensions),
      embedderId: deps.embedder.id,
      clusterId: t.clusterId ?? (linked ? input.clusterId : null),
      successCount: Math.max(t.successCount, counts.successCount),
      attemptCount: Math.max(t.attemptCount, counts.attemptCount),
      support: Math.max(t.support, counts.support),
      updatedAt: at,
    };
  }

  const outcome: GroupOutcome = {
    clusterId: input.clusterId,
    action: decision.action,
    skill,
    draft,
    target: target ? { id: target.id, name: target.name } : undefined,
    admission: admissionSummary,
  };
  if (input.dryRun) {
    // Later clusters of the same dry run must see this would-be skill, as they would in a real pass.
    if (decision.action === 'supersede') input.skills.remove(decision.target.id);
    input.skills.put(skill);
    return outcome;
  }

  // Provenance must resolve at write time: keep only parents that are stored sessions.
  const stored = await deps.store.existingSessionIds(input.namespace, sourceSessions);
  const write: SkillWrite = {
    action: decision.action,
    skill,
    supersedes,
    parents: [
      ...sourceSessions.filter((id) => stored.has(id)).map((id) => ({ kind: 'episodic' as const, id })),
      ...(input.facts ?? []).map((f) => ({ kind: 'semantic' as const, id: f.id })),
    ],
    actor: input.actor,
    detail: {
      cluster: input.clusterId,
      successRate: round(admissionSummary?.successRate ?? 0),
      followers: counts.attemptCount,
      coverage: round(verdict.coverage),
      resonance: round(verdict.resonance),
      distiller: deps.distiller.id,
    },
    clusterId: linked ? input.clusterId : null,
    at,
  };
  const saved = await deps.store.writeSkill(write);
  if (supersedes) input.skills.remove(supersedes);
  input.skills.put(saved);
  log.info(`skill ${decision.action}`, { cluster: input.clusterId, skill: saved.name, version: saved.version });
  return { ...outcome, skill: saved };
}

/** admit -> evidence -> distil for a group of sessions (with facts as extra parents when given). */
async function episodicDraft(deps: PipelineDeps, input: GroupInput, skip: (reason: string, extra?: Partial<GroupOutcome>) => GroupOutcome): Promise<Prepared | GroupOutcome> {
  const cfg = deps.config.synthesis;
  const spanRules = { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools };
  const consensusRules = { requiredSupport: cfg.consensusSupport, conditionalSupport: cfg.conditionalSupport };
  const admission = admitCluster(input.sessions, (s) => detectSpan(s, spanRules), (spans) => buildConsensus(spans, consensusRules).steps.map((s) => s.tool), {
    minOccurrences: input.admission?.minOccurrences ?? cfg.minOccurrences,
    minSuccessRate: input.admission?.minSuccessRate ?? cfg.minSuccessRate,
    rule: input.admission ? 'absolute' : cfg.admission,
    minGain: cfg.minGain,
    gainShrinkage: cfg.gainShrinkage,
    followThreshold: cfg.followThreshold,
    thinkTools: cfg.thinkTools,
    findSecrets,
  });
  const admissionSummary = {
    successRate: admission.successRate,
    followers: admission.followers,
    successfulFollowers: admission.successfulFollowers,
    denied: admission.denied,
  };
  if (!admission.admitted) return skip(`not admitted: ${admission.reason}`, { admission: admissionSummary });

  const procedure = collapseRepeats(buildConsensus(admission.spans, consensusRules).steps.map((s) => s.tool));
  const agreementOf = (s: Session) => sequenceF1(procedure, collapseRepeats(s.calls.filter((c) => c.ok && !cfg.thinkTools.includes(c.tool)).map((c) => c.tool)));
  const evidence = gatherEvidence(
    admission.successfulFollowers.map((session) => ({ session, agreement: agreementOf(session) })),
    { evidenceLimit: cfg.evidenceLimit, traceCharCap: cfg.traceCharCap, thinkTools: cfg.thinkTools, redact: redactText },
  );
  const own = input.ownSkillId ? (input.skills.get(input.ownSkillId) ?? null) : null;
  let raw: Draft | null;
  try {
    raw = await deps.distiller.distil({
    clusterId: input.clusterId,
    spans: admission.spans,
    successes: admission.successfulFollowers,
    failures: input.sessions.filter((s) => s.outcome === 'failure'),
    goals: admission.successfulFollowers.map((s) => redactText(normalizeGoal(s.goal))),
    cues: admission.successfulFollowers.flatMap((s) => (s.cue ? [redactText(normalizeGoal(s.cue))] : [])),
    evidence,
    goalWordWeight: input.goalWordWeight,
    toolWeight: input.toolWeight,
    takenNames: input.skills.names(own?.id),
    stats: { successes: admission.successfulFollowers.length, followers: admission.followers.length, sessions: input.sessions.length },
    });
  } catch (e) {
    // A model answer that is not a usable draft: skip this cluster, the pass goes on (SPEC "Off-states").
    if (MalformedDraftError.isInstance(e)) return skip(`distiller output rejected: ${e.reason}`, { admission: admissionSummary });
    throw e; // LlmUnavailableError (and anything else) stops the pass
  }
  deps.log.child('distiller').debug(raw ? 'draft' : 'SKIP', { cluster: input.clusterId, distiller: deps.distiller.id, name: raw?.name, steps: raw?.toolSequence.length });
  if (!raw) return skip('distiller returned SKIP', { admission: admissionSummary });
  // Defence in depth: whatever a distiller wrote, no secret or personal datum reaches a stored skill.
  const draft: Draft = { ...raw, whenToUse: redactText(raw.whenToUse), body: redactText(raw.body) };
  return {
    draft,
    evidence,
    counts: { successCount: admission.successfulFollowers.length, attemptCount: admission.followers.length, support: admission.spans.length },
    sourceSessions: admission.successfulFollowers.map((s) => s.id),
    admissionSummary,
    materialTools: new Set(input.sessions.flatMap((s) => s.calls.map((c) => c.tool))),
    exemplarTexts: admission.successfulFollowers.flatMap((s) => [s.goal, ...(s.cue ? [s.cue] : [])]),
  };
}

function mergeExemplars(a: Float32Array, b: Float32Array | null, dims: number): Float32Array | null {
  return packExemplars(chooseExemplars([...unpackExemplars(a, dims), ...unpackExemplars(b, dims)]));
}

/** A fact-only group: the facts are the procedure (`kind: heuristic`), and they are the evidence too. */
function factDraft(input: GroupInput): Prepared {
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
  const draft: Draft = { name, whenToUse: toDescription(`Use when ${cue}`), toolsRequired: [], toolSequence: [], body, kind: 'heuristic', steps: [] };
  const evidence = facts.map((f, i) => ({ sessionId: f.id, outcome: 'unknown' as const, text: texts[i], tools: [] }));
  return { draft, evidence, counts: { successCount: 0, attemptCount: 0, support: facts.length }, sourceSessions: [], materialTools: new Set(), exemplarTexts: [] };
}

function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = `${base.slice(0, 60).replace(/-+$/, '')}-${i}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Normalised mean of the goal centroid and the embedding of the procedure's own words (title, tools). */
export async function skillEmbedding(embedder: Embedder, goalCentroid: Float32Array, draft: Pick<Draft, 'body' | 'toolsRequired'>): Promise<Float32Array> {
  const title = /^#\s+(.+)$/m.exec(draft.body)?.[1] ?? '';
  const words = `${title}. ${draft.toolsRequired.map((t) => t.replace(/[_-]+/g, ' ')).join('. ')}`;
  const [own] = await embedder.embed([words]);
  const out = new Float32Array(goalCentroid.length);
  let norm = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = goalCentroid[i] + own[i];
    norm += out[i] * out[i];
  }
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] /= Math.sqrt(norm);
  return out;
}

export interface RenderOptions {
  license: string;
  version: string;
  id: string;
  sourceSessions: string[];
  clusterId: string | null;
  learnedBy: string;
}

/** The opaque id a SKILL.md uses for a source session: `ses-` and 16 hex digits of its id's hash. */
export function sessionRef(id: string): string {
  return `ses-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** The canonical SKILL.md of a draft: license and version injected, never taken from a distiller. */
export function renderSkillMd(draft: Pick<Draft, 'name' | 'whenToUse' | 'toolsRequired' | 'kind' | 'body'>, o: RenderOptions): string {
  const metadata: Record<string, string> = {
    version: o.version,
    'tools-required': draft.toolsRequired.join(' '),
    kind: draft.kind,
    'skill-id': o.id,
    'learned-by': o.learnedBy,
  };
  if (o.clusterId) metadata.cluster = o.clusterId;
  if (o.sourceSessions.length) {
    // Provenance ids, capped: the full list is in the store (skills explain / sourceSessions).
    // Opaque references, never the raw session ids (user-supplied strings): the store maps them back.
    metadata['parents-episodic'] = o.sourceSessions.slice(0, 8).map(sessionRef).join(' ');
    metadata['parents-episodic-count'] = String(o.sourceSessions.length);
  }
  return serializeSkillMd({ name: draft.name, description: draft.whenToUse, license: o.license, metadata, body: draft.body });
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Consolidation of skills already stored: two live skills learned by passes that are the same procedure (same
 * action, overlapping tools; reconcile's sameSkill) and alike enough to be recalled for each other's requests
 * become one. The one with more support absorbs the other's provenance, counts and exemplars; the other is
 * superseded with lineage, never deleted. One write per pair, through the single write path.
 */
export async function consolidateSkills(deps: PipelineDeps, input: { namespace: string; skills: SkillCatalog; toolWeight: (t: string) => number; actor: string; dryRun: boolean }): Promise<{ winner: Skill; loser: Skill }[]> {
  const merged: { winner: Skill; loser: Skill }[] = [];
  const bar = Math.min(deps.thresholds.recall, deps.thresholds.duplicate);
  const rules = { ...defaultReconcileRules, toolWeight: input.toolWeight };
  const learned = input.skills.live().filter((s) => s.clusterId && s.embedding);
  learned.sort((a, b) => b.support - a.support || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  for (const candidate of learned) {
    const winner = input.skills.get(candidate.id);
    if (!winner?.embedding) continue;
    for (const { skill: loser } of input.skills.neighbours(winner.embedding, bar, winner.id)) {
      if (!loser.clusterId || loser.support > winner.support || !sameSkill(winner.toolSequence, loser.toolSequence, rules)) continue;
      const at = deps.now().toISOString();
      const absorbed: Skill = {
        ...winner,
        successCount: winner.successCount + loser.successCount,
        attemptCount: winner.attemptCount + loser.attemptCount,
        support: winner.support + loser.support,
        exemplars: winner.exemplars ? mergeExemplars(winner.exemplars, loser.exemplars ?? null, deps.embedder.dimensions) : (loser.exemplars ?? null),
        sourceSessions: [...new Set([...winner.sourceSessions, ...loser.sourceSessions])],
        updatedAt: at,
      };
      merged.push({ winner: absorbed, loser });
      if (!input.dryRun) {
        const stored = await deps.store.existingSessionIds(input.namespace, loser.sourceSessions);
        const saved = await deps.store.writeSkill({
          action: 'reinforce',
          skill: absorbed,
          supersedes: loser.id,
          parents: loser.sourceSessions.filter((id) => stored.has(id)).map((id) => ({ kind: 'episodic' as const, id })),
          actor: input.actor,
          detail: { consolidated: loser.id, reason: 'same procedure as a live skill with more support' },
          clusterId: winner.clusterId,
          at,
        });
        input.skills.remove(loser.id);
        input.skills.put(saved);
      } else {
        input.skills.remove(loser.id);
        input.skills.put(absorbed);
      }
      deps.log.child('pass').info('skills consolidated', { skill: winner.name, absorbed: loser.name });
    }
  }
  return merged;
}
