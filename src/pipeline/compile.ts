import { normalizeGoal } from '../domain/normalize-goal.js';
import { stateKey } from '../store/state-key.js';
import { TermStats } from '../domain/term-stats.js';
import type { Fact, Session, Skill } from '../domain/types.js';
import { unit } from '../domain/clustering.js';
import { VectorIndex } from '../vector/vector-index.js';
import { distilGroup } from './chain.js';
import type { GroupOutcome } from './group.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { SkillCatalog } from './skill-catalog.js';
import { embedGoals } from './stages/embed.js';
import { CompileError } from '../errors/compile-error.js';
import { stillOpen } from '../domain/open-session.js';

/** Why compile leaves a session out: it is still open (domain/open-session.ts), and counts for nothing yet. */
export const STILL_OPEN_REASON = 'still open: it has not ended and has no outcome; end it or report its outcome first';

export interface CompileRequest {
  namespace: string;
  /** Explicit parent sessions (a single one is admissible). */
  sessions?: string[];
  /** A goal-like cue: the stored cluster whose goals match it best provides the parents. */
  cue?: string;
  /** Facts as semantic parents (fact-only compiles give `kind: heuristic`). */
  facts?: string[];
  /** Dry run (the default) writes nothing. */
  commit?: boolean;
  actor?: string;
}

export interface CompileResult {
  dryRun: boolean;
  action: GroupOutcome['action'];
  reason: string | null;
  skill: Pick<Skill, 'id' | 'name' | 'version' | 'description' | 'toolsRequired' | 'toolSequence' | 'kind'> | null;
  skillMd: string | null;
  parents: {
    sessions: { id: string; goal: string; outcome: Session['outcome'] }[];
    facts: { id: string; text: string }[];
  };
  /** The existing skill this one would reinforce, update or supersede. */
  duplicateOf: { id: string; name: string } | null;
  cluster: string | null;
  /** Sessions named (or in the cue's cluster) that were not used, each with why: one still open counts for nothing. */
  leftOut: { id: string; reason: string }[];
}

export { CompileError };

/**
 * Explicit compile: the single-shot version of the synthesis pass, through the same distilGroup pathway
 * (admit with relaxed counts but the same deny rules, evidence, distil, verify, reconcile, persist).
 */
export async function compile(deps: PipelineDeps, req: CompileRequest): Promise<CompileResult> {
  const { store, embedder } = deps;
  const ns = req.namespace;
  if (!req.sessions?.length && !req.cue?.trim() && !req.facts?.length) {
    throw new CompileError('compile needs session ids, a cue or fact ids');
  }
  let sessions: Session[] = [];
  let clusterId: string | null = null;
  let goalCentroid: Float32Array | null = null;

  if (req.sessions?.length) {
    sessions = await store.getSessions(ns, req.sessions);
    const missing = req.sessions.filter((id) => !sessions.some((s) => s.id === id));
    if (missing.length) throw new CompileError(`unknown session id(s) in namespace ${ns}: ${missing.join(', ')}`);
    // As in a pass, a session still open (the agent may be running) counts for nothing until it ends.
    if (sessions.every(stillOpen))
      throw new CompileError(
        `every session named is still open (it has not ended and has no outcome): ${sessions.map((s) => s.id).join(', ')}; end them or report their outcome first`,
      );
  } else if (req.cue?.trim()) {
    // Cue-directed: the cluster whose goal centroid is nearest to the cue, if it is similar enough.
    const [cueVector] = await embedder.embed([normalizeGoal(req.cue)]);
    const clusters = await store.loadClusters(ns, embedder.id);
    const index = new VectorIndex(embedder.dimensions);
    for (const c of clusters) index.add(c.id, c.goalCentroid);
    const hit = index.search(cueVector, 1, { minScore: deps.thresholds.recall })[0];
    if (hit) {
      clusterId = hit.id;
      sessions = await store.getSessions(ns, await store.clusterMembers(ns, hit.id));
      goalCentroid = clusters.find((c) => c.id === hit.id)!.goalCentroid;
      if (sessions.length && sessions.every(stillOpen) && !req.facts?.length)
        throw new CompileError(
          `every session of the group that matches the cue "${req.cue}" is still open (it has not ended and has no outcome): ${sessions.map((s) => s.id).join(', ')}; end them or report their outcome first`,
        );
    } else if (!req.facts?.length) {
      // A cue is matched against the groups synthesis passes formed: sessions recorded since the last pass are in none.
      throw new CompileError(
        clusters.length
          ? `no group of stored sessions matches the cue "${req.cue}" (similarity below ${deps.thresholds.recall}; sessions recorded since the last synthesis pass are grouped by the next one); name the sessions explicitly instead`
          : `no synthesis pass has grouped the stored sessions yet, so there is nothing to match the cue "${req.cue}" against: run one (synthesize), or name the sessions explicitly`,
      );
    }
  }
  const leftOut = sessions.filter(stillOpen).map((s) => ({ id: s.id, reason: STILL_OPEN_REASON }));
  sessions = sessions.filter((s) => !stillOpen(s));
  const facts: Fact[] = req.facts?.length ? await store.getFacts(ns, req.facts) : [];
  const missingFacts = (req.facts ?? []).filter((id) => !facts.some((f) => f.id === id));
  if (missingFacts.length) throw new CompileError(`unknown fact id(s) in namespace ${ns}: ${missingFacts.join(', ')}`);

  if (!goalCentroid) {
    const goals = sessions.length
      ? [...(await embedGoals(store, embedder, sessions)).values()]
      : await embedder.embed([normalizeGoal(req.cue ?? facts.map((f) => f.text).join(' '))]);
    const sum = new Float32Array(embedder.dimensions);
    for (const g of goals) for (let i = 0; i < sum.length; i++) sum[i] += g[i];
    goalCentroid = unit(sum);
  }

  const toolStats = TermStats.fromJSON(await store.getState(ns, stateKey.toolStats));
  const goalStats = TermStats.fromJSON(await store.getState(ns, stateKey.goalStats));
  const clusterRecord = clusterId
    ? (await store.loadClusters(ns, embedder.id)).find((c) => c.id === clusterId)
    : undefined;
  const catalog = new SkillCatalog(
    embedder.dimensions,
    await store.listSkills(ns, { corpus: 'internal', includeSuperseded: true }),
    embedder.id,
  );
  const out = await distilGroup(deps, {
    namespace: ns,
    clusterId: clusterId ?? 'compile',
    sessions,
    goalCentroid,
    ownSkillId: clusterRecord?.skillId ?? null,
    goalWordWeight: (w) => goalStats.weight(w),
    toolWeight: (t) => toolStats.weight(t),
    toolShare: (t) => toolStats.share(t),
    skills: catalog,
    dryRun: !req.commit,
    actor: req.actor ?? 'compile',
    admission: { minOccurrences: 1, minSuccessRate: 0 },
    facts,
    cue: req.cue,
    linkCluster: clusterId !== null,
  });

  const parentIds = new Set(out.admission?.successfulFollowers.map((s) => s.id) ?? []);
  return {
    dryRun: !req.commit,
    action: out.action,
    reason: out.reason ?? null,
    skill: out.skill
      ? {
          id: out.skill.id,
          name: out.skill.name,
          version: out.skill.version,
          description: out.skill.description,
          toolsRequired: out.skill.toolsRequired,
          toolSequence: out.skill.toolSequence,
          kind: out.skill.kind,
        }
      : null,
    skillMd: out.skill?.skillMd ?? null,
    parents: {
      sessions: sessions
        .filter((s) => parentIds.has(s.id))
        .map((s) => ({ id: s.id, goal: s.goal, outcome: s.outcome })),
      facts: facts.map((f) => ({ id: f.id, text: f.text })),
    },
    duplicateOf: out.target ?? null,
    cluster: clusterId,
    leftOut,
  };
}
