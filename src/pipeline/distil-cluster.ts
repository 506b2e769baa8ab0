import { randomUUID } from 'node:crypto';
import type { SkillsmithConfig } from '../config/config.js';
import { admitCluster, type Admission } from '../domain/admit.js';
import { buildConsensus } from '../domain/consensus.js';
import { gatherEvidence } from '../domain/evidence.js';
import { normalizeGoal } from '../domain/normalize-goal.js';
import { findSecrets, redactText } from '../domain/redact.js';
import { bumpVersion, reconcile, type Decision } from '../domain/reconcile.js';
import { collapseRepeats, sequenceF1 } from '../domain/sequence.js';
import { serializeSkillMd, validateSkillMd } from '../domain/skill-md/index.js';
import { detectSpan } from '../domain/spans.js';
import type { Draft, Session, Skill } from '../domain/types.js';
import { verifyDraft } from '../domain/verify.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import { VectorIndex } from '../index/vector-index.js';
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
}

/** The live internal skills of a namespace during a pass, with a vector index over their embeddings. */
export class SkillCatalog {
  private readonly byId = new Map<string, Skill>();
  private index: VectorIndex;

  constructor(private readonly dims: number, skills: Skill[], private readonly embedderId: string) {
    this.index = new VectorIndex(dims);
    for (const s of skills) this.put(s);
  }

  put(skill: Skill) {
    if (skill.supersededBy || skill.corpus !== 'internal') {
      this.byId.delete(skill.id);
      this.index.remove(skill.id);
      return;
    }
    this.byId.set(skill.id, skill);
    if (skill.embedding && skill.embedderId === this.embedderId && skill.embedding.length === this.dims) this.index.add(skill.id, skill.embedding);
  }

  remove(id: string) {
    this.byId.delete(id);
    this.index.remove(id);
  }

  get(id: string): Skill | undefined {
    return this.byId.get(id);
  }

  names(except?: string): Set<string> {
    return new Set([...this.byId.values()].filter((s) => s.id !== except).map((s) => s.name));
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
  const cfg = deps.config.synthesis;
  const log = deps.log.child('pass');
  const spanRules = { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools };
  const consensusRules = { requiredSupport: cfg.consensusSupport, conditionalSupport: cfg.conditionalSupport };
  const skip = (reason: string, extra: Partial<GroupOutcome> = {}): GroupOutcome => {
    log.info('cluster skipped', { cluster: input.clusterId, reason });
    return { clusterId: input.clusterId, action: 'skip', reason, ...extra };
  };

  const admission = admitCluster(input.sessions, (s) => detectSpan(s, spanRules), (spans) => buildConsensus(spans, consensusRules).steps.map((s) => s.tool), {
    minOccurrences: cfg.minOccurrences,
    minSuccessRate: cfg.minSuccessRate,
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
  const raw = await deps.distiller.distil({
    clusterId: input.clusterId,
    spans: admission.spans,
    successes: admission.successfulFollowers,
    failures: input.sessions.filter((s) => s.outcome === 'failure'),
    goals: admission.successfulFollowers.map((s) => redactText(normalizeGoal(s.goal))),
    evidence,
    goalWordWeight: input.goalWordWeight,
    toolWeight: input.toolWeight,
    takenNames: input.skills.names(own?.id),
    stats: { successes: admission.successfulFollowers.length, followers: admission.followers.length, sessions: input.sessions.length },
  });
  if (!raw) return skip('distiller returned SKIP', { admission: admissionSummary });
  // Defence in depth: whatever a distiller wrote, no secret or personal datum reaches a stored skill.
  const draft: Draft = { ...raw, whenToUse: redactText(raw.whenToUse), body: redactText(raw.body) };

  const license = deps.config.license;
  const verdict = verifyDraft(draft, evidence, {
    minCoverage: 0.5,
    minResonance: 0.5,
    validateSkillMd: (d) => validateSkillMd(renderSkillMd(d, { license, version: '1.0.0', id: 'x', sourceSessions: [], clusterId: input.clusterId, learnedBy: deps.distiller.id })).errors,
  });
  if (!verdict.ok) {
    log.warn('verification failed', { cluster: input.clusterId, reasons: verdict.reasons });
    return skip(`verification failed: ${verdict.reasons.join('; ')}`, { draft, admission: admissionSummary });
  }

  // The recall vector: what the cluster's goals have in common, plus the words of the procedure itself, so
  // that a short request ("exchange my keyboard") meets a skill learned from long persona-style goals.
  const embedding = await skillEmbedding(deps.embedder, input.goalCentroid, draft);
  const decision = reconcile(
    { toolSequence: draft.toolSequence, successes: admission.successfulFollowers.length, followers: admission.followers.length },
    own,
    own ? [] : input.skills.neighbours(embedding, deps.thresholds.duplicate),
  );
  const at = deps.now().toISOString();
  const sourceSessions = admission.successfulFollowers.map((s) => s.id);
  const counts = {
    successCount: admission.successfulFollowers.length,
    attemptCount: admission.followers.length,
    support: admission.spans.length,
  };
  const base = {
    namespace: input.namespace,
    corpus: 'internal' as const,
    kind: draft.kind,
    embedderId: deps.embedder.id,
    embedding,
    clusterId: input.clusterId,
  };

  let skill: Skill;
  let supersedes: string | undefined;
  const target = decision.action === 'add' ? undefined : decision.target;
  if (decision.action === 'add' || decision.action === 'supersede') {
    const id = `sk_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const version = decision.action === 'add' ? '1.0.0' : bumpVersion(decision.target.version, 'major');
    const name = decision.action === 'add' ? draft.name : decision.target.name;
    const named = { ...draft, name };
    skill = {
      ...base,
      id,
      name,
      description: draft.whenToUse,
      body: draft.body,
      skillMd: renderSkillMd(named, { license, version, id, sourceSessions, clusterId: input.clusterId, learnedBy: deps.distiller.id }),
      version,
      status: 'probationary',
      enabled: true,
      toolsRequired: draft.toolsRequired,
      toolSequence: draft.toolSequence,
      ...counts,
      eta: 0.5,
      utility: 0,
      trialsAttempted: 0,
      trialsPassed: 0,
      sourceSessions,
      supersededBy: null,
      createdAt: at,
      updatedAt: at,
      lastUsedAt: null,
    };
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
    skill = {
      ...t,
      embedding,
      embedderId: deps.embedder.id,
      clusterId: t.clusterId ?? input.clusterId,
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
  if (input.dryRun) return outcome;

  // Provenance must resolve at write time: keep only parents that are stored sessions.
  const stored = await deps.store.existingSessionIds(input.namespace, sourceSessions);
  const write: SkillWrite = {
    action: decision.action,
    skill,
    supersedes,
    parents: sourceSessions.filter((id) => stored.has(id)).map((id) => ({ kind: 'episodic' as const, id })),
    actor: input.actor,
    detail: {
      cluster: input.clusterId,
      successRate: round(admission.successRate),
      followers: admission.followers.length,
      coverage: round(verdict.coverage),
      resonance: round(verdict.resonance),
      distiller: deps.distiller.id,
    },
    clusterId: input.clusterId,
    at,
  };
  const saved = await deps.store.writeSkill(write);
  if (supersedes) input.skills.remove(supersedes);
  input.skills.put(saved);
  log.info(`skill ${decision.action}`, { cluster: input.clusterId, skill: saved.name, version: saved.version });
  return { ...outcome, skill: saved };
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
    metadata['parents-episodic'] = o.sourceSessions.slice(0, 8).join(' ');
    metadata['parents-episodic-count'] = String(o.sourceSessions.length);
  }
  return serializeSkillMd({ name: draft.name, description: draft.whenToUse, license: o.license, metadata, body: draft.body });
}

const round = (x: number) => Math.round(x * 1000) / 1000;
