import type { Admission } from '../domain/admit.js';
import type { EvidenceTrace } from '../domain/evidence.js';
import type { Decision } from '../domain/reconcile.js';
import type { Draft, Fact, Session, Skill } from '../domain/types.js';
import type { WordLookup } from '../domain/verify.js';
import type { SkillCatalog } from './skill-catalog.js';

/** One group of sessions (a cluster, or an explicit compile) on its way through the stages. */
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
  /** The share of the namespace's sessions that call a tool (reconcile: a common tool says nothing of the task). */
  toolShare: (t: string) => number;
  /** Live internal skills of the namespace, for duplicate detection and name clashes. */
  skills: SkillCatalog;
  /**
   * Retired skills that were retired for want of evidence (sources reported failed, stages/revoke.ts): the group's
   * own skill among them comes back on probation when the group is learned from again.
   */
  revivable?: ReadonlySet<string>;
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

/** What admission found, as reported for a group. */
export type AdmissionSummary = Pick<Admission, 'successRate' | 'followers' | 'successfulFollowers' | 'denied'>;

/** What one group of sessions (a cluster, or an explicit compile) produced. */
export interface GroupOutcome {
  clusterId: string;
  action: Decision['action'] | 'skip';
  reason?: string;
  skill?: Skill;
  draft?: Draft;
  /** For a decision against an existing skill: which one. */
  target?: { id: string; name: string };
  admission?: AdmissionSummary;
}

/** A draft and what it was learned from: the input of verify, reconcile and persist. */
export interface DraftMaterial {
  draft: Draft;
  evidence: EvidenceTrace[];
  counts: { successCount: number; attemptCount: number; support: number };
  sourceSessions: string[];
  admissionSummary?: AdmissionSummary;
  /** Every tool the group's sessions called: a draft may name only these. */
  materialTools: Set<string>;
  /** The goals, arguments, results and errors of the group's sessions, redacted: what a draft may quote (read lazily). */
  materialText?: () => string;
  /** The words of that text, lowercased (verify.ts tieredWords): a name a draft writes is looked up here first. */
  materialWords?: () => WordLookup;
  /** Goals and cues of the sessions the skill is learned from, each with its session: its recall exemplars come from these. */
  exemplarTexts: { text: string; sessionId: string }[];
}
