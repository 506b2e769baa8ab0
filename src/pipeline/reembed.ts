import { EXEMPLAR_SOURCES, type SourcedExemplars } from '../domain/exemplars.js';
import type { Session, Skill } from '../domain/types.js';
import type { Embedder } from '../embedders/embedder.js';
import { EmbeddingDimensionError } from '../errors/embedding-dimension-error.js';
import { exemplarsFrom, NO_EXEMPLARS, skillEmbedding } from './skill-embedding.js';
import { embedGoals, embedTexts } from './stages/embed.js';
import type { EmbeddingReplacement, Store } from '../store/store.js';

/** Re-embedding works on any store: the swap of vectors and cluster state is one store transaction. */
export type ReembedStore = Store;

export interface ReembedOptions {
  /** Count what would change; embed nothing and write nothing. */
  dryRun?: boolean;
  actor?: string;
  now?: () => Date;
  onProgress?: (done: number, total: number) => void;
}

export interface ReembedReport {
  namespace: string;
  embedderId: string;
  dimensions: number;
  /** Skills re-embedded (or, on a dry run, that would be). */
  skills: number;
  /** How many skills each previous embedder id had (`none` for skills without a vector). */
  from: Record<string, number>;
  /** Clusters deleted (0 on a dry run). */
  clustersCleared: number;
  dryRun: boolean;
}

/**
 * Re-embeds every skill of a namespace (live, superseded and imported) with `embedder` and clears the
 * cluster state, so that vectors of two embedders are never compared: run it after changing
 * `embedder.provider` / `embedder.model`. Learned skills get the vector the pass gives them
 * (`skillEmbedding`: the normalised mean of their source sessions' normalised goals, blended with the
 * procedure's title and tools) and their exemplars as a pass chooses them; imported skills, and learned ones whose sessions are gone, the vector of
 * their description (as `skills import` does). Nothing is written unless every vector was computed.
 */
export async function reembed(
  store: ReembedStore,
  embedder: Embedder,
  namespace: string,
  opts: ReembedOptions = {},
): Promise<ReembedReport> {
  const skills = await store.listSkills(namespace, { includeSuperseded: true });
  const from: Record<string, number> = {};
  for (const s of skills) from[s.embedderId ?? 'none'] = (from[s.embedderId ?? 'none'] ?? 0) + 1;
  const report: ReembedReport = {
    namespace,
    embedderId: embedder.id,
    dimensions: embedder.dimensions,
    skills: skills.length,
    from,
    clustersCleared: 0,
    dryRun: !!opts.dryRun,
  };
  if (opts.dryRun) return report;

  const vectors: EmbeddingReplacement['vectors'] = [];
  const byDescription: Skill[] = [];
  for (const [i, skill] of skills.entries()) {
    opts.onProgress?.(i, skills.length);
    const sessions = skill.corpus === 'internal' ? await sourceSessions(store, namespace, skill) : [];
    const centroid = sessions.length ? await goalCentroid(store, embedder, sessions) : null;
    if (!centroid) {
      byDescription.push(skill);
      continue;
    }
    vectors.push({
      skillId: skill.id,
      embedding: await skillEmbedding(embedder, centroid, skill),
      ...(await exemplarsOf(store, embedder, sessions)),
    });
  }
  if (byDescription.length) {
    const embedded = await embedder.embed(byDescription.map((s) => s.description));
    byDescription.forEach((s, i) => {
      vectors.push({ skillId: s.id, embedding: embedded[i] });
    });
  }
  for (const v of vectors) {
    if (v.embedding.length !== embedder.dimensions)
      throw new EmbeddingDimensionError(embedder.id, embedder.dimensions, v.embedding.length);
  }
  opts.onProgress?.(skills.length, skills.length);

  const result = await store.replaceEmbeddings(namespace, {
    embedderId: embedder.id,
    vectors,
    actor: opts.actor ?? 'reembed',
    at: (opts.now ?? (() => new Date()))().toISOString(),
  });
  report.skills = result.skills;
  report.clustersCleared = result.clusters;
  return report;
}

/** The skill's source sessions still stored. */
async function sourceSessions(store: ReembedStore, namespace: string, skill: Skill): Promise<Session[]> {
  return skill.sourceSessions.length ? store.getSessions(namespace, skill.sourceSessions) : [];
}

/**
 * Recall exemplars as a pass chooses them (chain.ts): from the goals and cues of the newest EXEMPLAR_SOURCES
 * source sessions, embedded by the new embedder. Each says its sessions; none when the sessions give none.
 */
async function exemplarsOf(store: ReembedStore, embedder: Embedder, sessions: Session[]): Promise<SourcedExemplars> {
  const wordings = sessions
    .slice(-EXEMPLAR_SOURCES)
    .flatMap((s) => [s.goal, ...(s.cue ? [s.cue] : [])].map((text) => ({ text, sessionId: s.id })));
  if (wordings.length === 0) return NO_EXEMPLARS;
  return exemplarsFrom(
    wordings,
    await embedTexts(
      store,
      embedder,
      wordings.map((w) => w.text),
    ),
  );
}

/** The normalised mean of the source sessions' goal embeddings, or null when there is none. */
async function goalCentroid(
  store: ReembedStore,
  embedder: Embedder,
  sessions: Session[],
): Promise<Float32Array | null> {
  const goals = await embedGoals(store as unknown as Store, embedder, sessions);
  const sum = new Float32Array(embedder.dimensions);
  for (const v of goals.values()) for (let d = 0; d < sum.length; d++) sum[d] += v[d];
  let norm = 0;
  for (let d = 0; d < sum.length; d++) norm += sum[d] * sum[d];
  if (norm === 0) return null;
  const inv = 1 / Math.sqrt(norm);
  for (let d = 0; d < sum.length; d++) sum[d] *= inv;
  return sum;
}
