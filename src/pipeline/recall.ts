import { toolMatcher } from '../domain/tool-match.js';
import type { SkillsmithConfig } from '../config/config.js';
import { type Branch, branchesFor, branchesOf } from '../domain/branches.js';
import { clip } from '../domain/context-pack.js';
import { normalizeGoal, unquoteLabels } from '../domain/normalize-goal.js';
import type { Skill } from '../domain/types.js';
import type { Embedder } from '../embedders/embedder.js';
import { loadIndexFile, saveIndexFile, type IndexIdentity } from '../vector/index-file.js';
import { recallIndexPath, shortHash } from '../vector/index-location.js';
import { TieredIndex } from '../vector/tiered-index.js';
import { GoalMean, removeDirection } from '../domain/goal-mean.js';
import { MAX_EXEMPLARS, unpackExemplars } from '../domain/exemplars.js';
import type { ServedSkill, SkillRevision, SkillVectorRow, Store } from '../store/store.js';
import { stateKey } from '../store/state-key.js';
import { mulberry32 } from '../support/random.js';
import type { Logger } from '../support/log.js';
import { redactText } from '../domain/redact.js';
import { contentWords, distinctiveWeights, overlapScorer, skillWords } from '../domain/word-match.js';

/** One recalled skill: the stable JSON shape of `skillsmith recall --json`, plus a few extras. */
export interface RecalledSkill {
  id: string;
  name: string;
  similarity: number;
  toolsRequired: string[];
  /** The main path (with branches: the default one). */
  toolSequence: string[];
  /**
   * Where the procedure branches on what a lookup shows: each branch's condition on `when.tool`'s result and the
   * whole path to follow when it holds (read from the body's `## Branches` section; empty for a plain procedure).
   */
  branches: Branch[];
  /** The body, clipped to maxRecallBodyChars with an explicit marker. */
  body: string;
  description: string;
  status: Skill['status'];
  eta: number;
  utility: number;
  kind: Skill['kind'];
  version: string;
}

/** The best skill for a goal that recalled none, with the similarity it fell short at and the threshold it missed. */
export interface NearestSkill {
  name: string;
  similarity: number;
  threshold: number;
  /**
   * Set when the embedder knows the meaning of none of the goal's words (the embedded GloVe embedder and a request
   * in another language): it was compared by its words and characters alone, and the id of that embedder.
   */
  wordsOnly?: { embedder: string };
}

/** A skill may be served when a person has not disabled it, it is internal, live, not retired and above the eta floor. */
export function isRecallable(
  s: Pick<Skill, 'enabled' | 'corpus' | 'supersededBy' | 'status' | 'eta'>,
  retireEta: number,
): boolean {
  return s.enabled && s.corpus === 'internal' && !s.supersededBy && s.status !== 'retired' && s.eta >= retireEta;
}

/** What recall reads of the configuration. */
export type RecallSettings = Pick<SkillsmithConfig, 'recall'> & {
  lifecycle: Pick<SkillsmithConfig['lifecycle'], 'retireEta'>;
};

/** Index size up to which recall asks the index for every entry (see recall()). */
const EXHAUSTIVE = 256;

/** Skills fetched for recall's hits kept in memory; bodies beyond these are read when a hit needs them. */
const SKILL_CACHE = 1024;

/**
 * Recall from an index of the recallable skills of one namespace: their vectors only (typed arrays or an HNSW
 * graph), with bodies and metadata read from the store for the few hits a recall serves.
 *
 * - A new process loads the index from its file (see vector/index-file.ts) instead of rebuilding it, then
 *   applies the skill changes the store logged since the file's revision. A file that is missing, truncated,
 *   corrupt, or built on another database, embedder or centering is rebuilt from the store.
 * - While running, a recall costs a change-token check; when the token moves, the logged changes since the
 *   index's revision are applied (never a full reload), and the file is rewritten once enough have piled up.
 * - Served skills are read fresh and checked again (enabled, live, eta floor), so no recall serves a skill
 *   the store no longer allows, whatever the index holds.
 */
export class RecallIndex {
  private index: TieredIndex | null = null;
  /** Store revision the index reflects, and the basis (database, centering, eta floor) it was built on. */
  private revision: SkillRevision | null = null;
  private basis: string | null = null;
  private token: string | null = null;
  private stale = true;
  /** The namespace's mean goal direction, removed from skill and query vectors before comparing them. */
  private center: Float32Array | null = null;
  /** Centering strength in use: the configured one, scaled by how much the namespace's mean can be trusted. */
  private strength = 0;
  private random: () => number;
  /** Recently served skills (bounded; insertion order is recency). */
  private skills = new Map<string, ServedSkill>();
  /**
   * What ranking needs of the skills the index holds (utility and eta; being indexed means recallable), as of
   * the index's revision: kept by the same change-log path as the index, so recall ranks the near-ties of a
   * query without reading them from the store. After a file load it fills as skills are first read.
   */
  private ranks = new Map<string, Rank>();
  /** Changes applied since the index was last saved. */
  private unsaved = 0;
  private readonly path: string | null;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly namespace: string,
    private readonly config: RecallSettings,
    private readonly log?: Logger,
  ) {
    this.random = mulberry32(config.recall.seed);
    this.path = config.recall.persistIndex
      ? recallIndexPath({
          storeKind: store.kind,
          storeLocation: store.location,
          namespace,
          embedderId: embedder.id,
          cacheDir: config.recall.indexCacheDir,
        })
      : null;
  }

  /** Marks the index for a check against the store (after a write in this process). */
  invalidate() {
    this.stale = true;
  }

  /** Where the index is kept between processes (null: not kept). */
  get file(): string | null {
    return this.path;
  }

  private async ensure() {
    const token = await this.store.changeToken();
    if (!this.stale && this.index && token === this.token) return;
    let strength = this.config.recall.centering;
    let mean: string | null = null;
    let revision: SkillRevision;
    try {
      if (strength > 0) mean = await this.store.getState(this.namespace, stateKey.goalMean(this.embedder.id));
      revision = await this.store.skillRevision(this.namespace);
    } catch (e) {
      // A networked store that is restarting: keep serving the index already loaded; the next recall retries.
      if (this.index) return;
      throw e;
    }
    // The namespace's mean is removed in proportion to how many goals it has seen (GoalMean.trust).
    const goalMean = GoalMean.fromJSON(mean, this.embedder.dimensions);
    strength *= goalMean.trust();
    const basis = `${revision.storeId};centering=${strength};mean=${shortHash(mean ?? '')};retireEta=${this.config.lifecycle.retireEta}`;
    if (basis !== this.basis) {
      this.center = strength > 0 ? goalMean.direction() : null;
      this.strength = strength;
      this.index = null;
      this.skills.clear();
      this.ranks.clear();
    }
    if (!this.index) this.loadFile(basis);
    // A file from the future (the database was restored from an older copy) cannot be wound back: rebuild.
    if (this.index && this.revision && this.revision.revision > revision.revision) this.index = null;
    try {
      if (!this.index) await this.rebuild(basis);
      else if (this.revision!.revision !== revision.revision) await this.applyChanges();
    } catch (e) {
      if (this.index) return;
      throw e;
    }
    this.token = token;
    this.stale = false;
    this.saveIfDue();
    this.warmUp();
  }

  /** The index revision whose skills are all in the served-skill cache (a networked store only). */
  private warmedAt: string | null = null;

  /**
   * A database server restarts while agents keep asking: with a networked store (PostgreSQL) and a namespace of at
   * most SKILL_CACHE skills, every recallable skill is read into the cache behind the caller, so recall serves any of
   * them while the database is away, not only those served before. Local files (SQLite) are always there.
   */
  private warmUp(): void {
    if (this.store.kind !== 'postgres' || !this.index || !this.revision) return;
    const at = `${this.basis}@${this.revision.revision}`;
    if (this.warmedAt === at || this.index.size > SKILL_CACHE * (MAX_EXEMPLARS + 1)) return;
    this.warmedAt = at;
    void (async () => {
      const { rows } = await this.store.skillVectors(this.namespace);
      if (rows.length > SKILL_CACHE) return;
      const missing = rows.map((r) => r.id).filter((id) => !this.skills.has(id));
      if (missing.length === 0) return;
      const read = await this.store.recallSkills(this.namespace, missing);
      // A change meanwhile may have made one of them stale: this round is dropped, the next change warms again.
      if (this.warmedAt !== `${this.basis}@${this.revision?.revision}`) return;
      for (const skill of read) if (!this.skills.has(skill.id)) this.skills.set(skill.id, skill);
    })().catch((e) => {
      // Tried again after the next change; recall itself reads what it needs.
      this.warmedAt = null;
      this.log?.debug('recall cache warm-up failed', { namespace: this.namespace, error: String(e) });
    });
  }

  private identity(basis: string): IndexIdentity {
    return { namespace: this.namespace, embedderId: this.embedder.id, dimensions: this.embedder.dimensions, basis };
  }

  private loadFile(basis: string) {
    if (!this.path) return;
    const loaded = loadIndexFile(this.path, this.identity(basis), this.indexOptions());
    if ('reason' in loaded) {
      if (loaded.reason !== 'no index file')
        this.log?.info(`recall index file not used (${loaded.reason}): rebuilding it`, {
          namespace: this.namespace,
          file: this.path,
        });
      return;
    }
    this.index = loaded.index;
    this.ranks.clear();
    this.basis = basis;
    this.revision = { storeId: basis.slice(0, basis.indexOf(';')), revision: loaded.revision };
    this.unsaved = 0;
  }

  private indexOptions() {
    // recall.annFrom counts skills; the index holds up to MAX_EXEMPLARS + 1 vectors per skill.
    return { annFrom: this.config.recall.annFrom * (MAX_EXEMPLARS + 1) };
  }

  /** Every recallable skill's vector, from the store; then saved. */
  private async rebuild(basis: string) {
    const { revision, rows } = await this.store.skillVectors(this.namespace);
    const d = this.embedder.dimensions;
    const ids: string[] = [];
    let foreign = 0;
    const foreignIds = new Set<string>();
    let earlier = 0;
    const superseded = new Set(this.embedder.supersedes ?? []);
    const served: [string, Float32Array][] = [];
    const ranks = new Map<string, Rank>();
    for (const row of rows) {
      const v = this.servedVectors(row);
      if (v === 'foreign' && superseded.has(row.embedderId ?? '')) earlier++;
      else if (v === 'foreign') {
        foreign++;
        if (row.embedderId) foreignIds.add(row.embedderId);
      }
      if (Array.isArray(v)) {
        served.push(...v);
        ranks.set(row.id, rankOf(row));
      }
    }
    const vectors = new Float32Array(served.length * d);
    for (const [id, v] of served) {
      vectors.set(v, ids.length * d);
      ids.push(id);
    }
    this.index = TieredIndex.build(d, ids, vectors, this.indexOptions());
    this.revision = revision;
    this.basis = basis;
    this.skills.clear();
    this.ranks = ranks;
    // Written right away: this is the work a new process should not repeat.
    this.unsaved = Math.max(1, ids.length);
    // Said once per load, not per recall: vectors of two models are never compared, so these are not served.
    // Most often the configuration was left out (a hook without --config, a new shell): re-embedding then would
    // replace the model's vectors with this embedder's, so the configuration is named first.
    if (foreign)
      this.log?.warn(
        `${foreign} recallable skills were embedded by another model than ${this.embedder.id}${foreignIds.size ? ` (${[...foreignIds].join(', ')})` : ''} and are not served: give the configuration they were embedded with (--config or SKILLSMITH_CONFIG), or run "skillsmith reembed" to embed them again with ${this.embedder.id}`,
        { namespace: this.namespace },
      );
    if (earlier)
      this.log?.warn(
        `${earlier} recallable skills were embedded by an earlier version of ${this.embedder.id} and are not served until the next synthesis pass re-embeds them (or run "skillsmith reembed")`,
        { namespace: this.namespace },
      );
  }

  /** The skills the store changed since the index's revision, and only those. */
  private async applyChanges() {
    const { revision, rows, changedIds } = await this.store.skillVectors(this.namespace, {
      changedAfter: this.revision!.revision,
    });
    if (changedIds === null) {
      // The store's change log no longer reaches back to this index (it keeps a bounded window): start over.
      this.log?.info('recall index is older than the skill change log: rebuilding it', { namespace: this.namespace });
      this.index = null;
      await this.rebuild(this.basis!);
      return;
    }
    const index = this.index!;
    try {
      for (const id of changedIds ?? []) {
        for (const entry of entryIds(id)) index.remove(entry);
        this.skills.delete(id);
        this.ranks.delete(id);
      }
      for (const row of rows) {
        const v = this.servedVectors(row);
        if (!Array.isArray(v)) continue;
        for (const [id, vector] of v) index.add(id, vector);
        this.ranks.set(row.id, rankOf(row));
      }
    } catch (e) {
      // A mapped graph whose file went away before its first change (see HnswIndex.loadGraph): start over.
      this.log?.info('recall index could not take the changes: rebuilding it', {
        namespace: this.namespace,
        error: String(e),
      });
      this.index = null;
      await this.rebuild(this.basis!);
      return;
    }
    this.revision = revision;
    this.unsaved += changedIds?.length ?? 0;
  }

  /** The index entries recall compares for this row (its centroid, then its exemplars), or why it has none. */
  private servedVectors(row: SkillVectorRow): [string, Float32Array][] | 'foreign' | null {
    if (!isRecallable(row, this.config.lifecycle.retireEta)) return null;
    if (row.embedding && row.embedderId !== this.embedder.id) return 'foreign';
    if (!row.embedding || row.embedding.length !== this.embedder.dimensions) return null;
    const ids = entryIds(row.id);
    return recallVectors(row, this.embedder.dimensions).map((v, i) => [
      ids[i],
      removeDirection(v, this.center, this.strength),
    ]);
  }

  /** Saves after a rebuild, or once the changes applied since the last save are a sizeable share. */
  private saveIfDue(force = false) {
    if (!this.path || !this.index || !this.revision || this.unsaved === 0) return;
    if (!force && this.unsaved < Math.max(64, this.index.size / 20) && this.unsaved < this.index.size) return;
    try {
      saveIndexFile(this.path, this.index, this.identity(this.basis!), this.revision.revision);
      this.unsaved = 0;
    } catch (e) {
      // Recall still works from memory; a read-only directory only costs the next process a rebuild.
      this.log?.warn('could not save the recall index file', { file: this.path, error: String(e) });
      this.unsaved = 0;
    }
  }

  /** Writes the index file if changes are not in it yet (on close); `always`: even when it is up to date. */
  persist(always = false) {
    if (always && this.index) this.unsaved = Math.max(1, this.unsaved);
    this.saveIfDue(true);
  }

  /** The skills behind these hits, fresh from the store unless recently served. */
  private async skillsFor(ids: string[]): Promise<Map<string, ServedSkill>> {
    const out = new Map<string, ServedSkill>();
    const missing: string[] = [];
    for (const id of ids) {
      const s = this.skills.get(id);
      if (s) out.set(id, s);
      else missing.push(id);
    }
    if (missing.length) {
      try {
        for (const s of await this.store.recallSkills(this.namespace, missing)) out.set(s.id, s);
      } catch (e) {
        // The store is away (a database restarting): serve the hits already at hand, if any, rather than none.
        if (out.size === 0) throw e;
        this.log?.warn('the store did not answer: recall serves the skills it holds in memory', {
          namespace: this.namespace,
          left: missing.length,
          error: String(e),
        });
      }
    }
    for (const [id, s] of out) {
      this.skills.delete(id);
      this.skills.set(id, s);
    }
    while (this.skills.size > SKILL_CACHE) this.skills.delete(this.skills.keys().next().value!);
    return out;
  }

  /**
   * The servable skills among `close` (best first) that can still end in the top `topK` once near-ties are
   * broken and drawn, with what ranking needs of them: from `ranks`, and read from the store only for skills
   * not known yet (after a file load), best first, stopping where the rest cannot matter. A skill only moves
   * ahead of skills at most `tieMargin` more similar (breakNearTies, softmaxDraw), so once `topK` servable
   * skills are known, those below the topK-th similarity minus the margin (a suffix of `close`) leave the served
   * list unchanged: the hundreds of copies of one goal that can sit within the relative margin cost a map
   * lookup each, and at most one store read in the life of the index.
   */
  private async candidates(close: { id: string; score: number }[], topK: number): Promise<Candidate[]> {
    const margin = this.config.recall.tieMargin;
    const ranked: Candidate[] = [];
    let read = 0;
    // A topK below 1 serves nothing but still draws among every candidate (as it always did): read them all.
    let want = topK >= 1 ? Math.min(close.length, topK) : close.length;
    while (read < want) {
      const batch = close.slice(read, want);
      const unknown = batch.filter((h) => !this.ranks.has(h.id)).map((h) => h.id);
      if (unknown.length) await this.learnRanks(unknown);
      for (const h of batch) {
        const rank = this.ranks.get(h.id);
        if (rank) ranked.push({ id: h.id, skill: rank, similarity: h.score });
      }
      read = want;
      if (topK < 1) break;
      if (ranked.length < topK) {
        want = Math.min(close.length, read + Math.max(topK, read));
        continue;
      }
      // Every hit within the margin of the topK-th servable one (a hair wider, for rounding).
      const cutoff = ranked[topK - 1].similarity - margin - 1e-9;
      while (want < close.length && close[want].score >= cutoff) want++;
    }
    return ranked;
  }

  /** Ranks of indexed skills not known yet, from the store (checked as stored now: an unservable one is left out). */
  private async learnRanks(ids: string[]) {
    const retireEta = this.config.lifecycle.retireEta;
    const skills = await this.skillsFor(ids);
    for (const id of ids) {
      const skill = skills.get(id);
      if (skill && isRecallable(skill, retireEta)) this.ranks.set(id, rankOf(skill));
    }
  }

  /**
   * The skills to serve for `close`, best first: ranked from `ranks`, then the chosen ones read (from the
   * recently served or the store) and checked again as stored now. A chosen skill that is gone, no longer
   * servable or ranked on old figures (a change not yet seen) is ranked again from what was read: the served
   * list is the one ranking on fresh rows gives.
   */
  private async serve(close: { id: string; score: number }[], topK: number, request: string) {
    const retireEta = this.config.lifecycle.retireEta;
    const weight = this.config.recall.wordWeight;
    // With words in the order, WORD_POOL candidates more than topK are ranked, so one the words favour can move up.
    const pool = weight > 0 && topK >= 1 ? topK + WORD_POOL : topK;
    const words = weight > 0 ? contentWords(request) : null;
    // A second ranking uses the rows just read; only writes racing this recall could ask for a third.
    for (let attempt = 1; ; attempt++) {
      const ranked = rankByWords(await this.candidates(close, pool), words, weight);
      breakNearTies(ranked, this.config.recall.tieMargin);
      if (this.config.recall.softmaxTemperature > 0) {
        softmaxDraw(ranked, this.config.recall.tieMargin, this.config.recall.softmaxTemperature, this.random);
      }
      const chosen = ranked.slice(0, topK);
      const skills = await this.skillsFor(chosen.map((c) => c.id));
      let stale = false;
      for (const c of chosen) {
        const skill = skills.get(c.id);
        if (
          skill &&
          isRecallable(skill, retireEta) &&
          skill.utility === c.skill.utility &&
          skill.eta === c.skill.eta &&
          skillWords(skill) === c.skill.words &&
          toolsKey(skill.toolSequence) === c.skill.tools
        )
          continue;
        stale = true;
        this.skills.delete(c.id);
        if (skill && isRecallable(skill, retireEta)) this.ranks.set(c.id, rankOf(skill));
        else this.ranks.delete(c.id);
      }
      if (!stale || attempt >= 3) {
        return chosen.flatMap((c) => {
          const skill = skills.get(c.id);
          // The similarity served is the embedding's; words only ordered the candidates.
          return skill && isRecallable(skill, retireEta) ? [{ skill, similarity: c.cosine }] : [];
        });
      }
    }
  }

  /**
   * The hits whose skill's main path (`toolSequence`) uses only `tools`, from the ranks the index keeps (read from
   * the store only for skills not known yet, after a file load): a fleet's agents share a memory, and an agent is
   * not handed a procedure whose steps call tools it lacks.
   */
  private async followable(hits: { id: string; score: number }[], tools: readonly string[]) {
    const unknown = hits.filter((h) => !this.ranks.has(h.id)).map((h) => h.id);
    if (unknown.length) await this.learnRanks(unknown);
    const has = toolMatcher(tools);
    const fits = new Map<string, boolean>();
    return hits.filter((h) => {
      const key = this.ranks.get(h.id)?.tools;
      if (key === undefined) return false;
      let ok = fits.get(key);
      if (ok === undefined) {
        ok = key === '' || key.split('\n').every(has);
        fits.set(key, ok);
      }
      return ok;
    });
  }

  /** Skills the index holds. */
  get size(): number {
    return this.index?.size ?? 0;
  }

  /**
   * The last query a model embedder embedded: a recall that finds nothing is followed by a look for the nearest
   * skill with the same text, and a model server would be asked twice.
   */
  private lastQuery: { text: string; vector: Awaited<ReturnType<Embedder['embed']>>[number] } | null = null;

  private async queryVector(text: string): Promise<Awaited<ReturnType<Embedder['embed']>>[number]> {
    if (this.embedder.embedSync) return this.embedder.embedSync(text);
    if (this.lastQuery?.text === text) return this.lastQuery.vector;
    const [vector] = await this.embedder.embed([text]);
    this.lastQuery = { text, vector };
    return vector;
  }

  /**
   * The skill a goal came nearest to, whatever its score, with the threshold the goal was held to (the configured
   * one as the embedder applies it to this goal: Embedder.recallThreshold); leaves no trace. Null when no skill is
   * served.
   */
  async nearest(
    goal: string,
    opts: { threshold: number; now?: Date; tools?: readonly string[] | null },
  ): Promise<NearestSkill | null> {
    const [hit] = await this.recall(goal, { topK: 1, threshold: -1, now: opts.now, touch: false, tools: opts.tools });
    if (!hit) return null;
    const held = this.embedder.recallThreshold?.(await this.queryVector(normalizeGoal(goal)), opts.threshold);
    return {
      name: hit.name,
      similarity: hit.similarity,
      threshold: Math.round((held?.threshold ?? opts.threshold) * 10000) / 10000,
      ...(held?.wordsOnly ? { wordsOnly: { embedder: this.embedder.id } } : {}),
    };
  }

  async recall(
    goal: string,
    opts: {
      topK?: number;
      threshold: number;
      touch?: boolean;
      now?: Date;
      sessionId?: string | null;
      /** The tools the agent has: only skills whose main path uses none other are served (null: any skill). */
      tools?: readonly string[] | null;
    },
  ): Promise<RecalledSkill[]> {
    if (!goal.trim()) return [];
    await this.ensure();
    if (!this.index || this.index.size === 0) return [];
    const topK = opts.topK ?? this.config.recall.topK;
    const text = normalizeGoal(goal);
    const raw = await this.queryVector(text);
    const threshold = this.embedder.recallThreshold?.(raw, opts.threshold).threshold ?? opts.threshold;
    const vec = removeDirection(raw, this.center, this.strength);
    // Several vectors per skill (its centroid and its exemplars): a skill scores its best one.
    // Enough entries for topK + 2 skills even if each one's vectors all come first; an index of up to
    // EXHAUSTIVE entries is asked for all of them, so a small graph's answer is the exact one (two builds of
    // one graph then agree). On a large graph a wider search costs: at 100k entries k = 256 took 5x the time
    // of k = 36, and the first search of a new process touches that many more pages of the mapped graph.
    // With the agent's tools named, skills it cannot follow are passed over: a wider search keeps enough behind them.
    const want = (topK + 2) * (MAX_EXEMPLARS + 1) * (opts.tools ? TOOLS_WIDTH : 1);
    const found = bestPerSkill(
      this.index.search(vec, this.index.size <= EXHAUSTIVE ? Math.max(want, EXHAUSTIVE) : want, {
        minScore: threshold,
      }),
    );
    const hits = opts.tools ? await this.followable(found, opts.tools) : found;
    // A second skill must be competitive with the best match, not merely above the absolute threshold.
    const floor = hits.length ? hits[0].score - this.config.recall.relativeMargin : 0;
    const close = hits.filter((h) => h.score >= floor);
    // The words that order the candidates keep a quoted label's words ("No Service"); the embedding does not
    // need them (tried: no better on either half of the dev traces).
    const wordText = /["“]/.test(goal) ? normalizeGoal(unquoteLabels(goal)) : text;
    const chosen = await this.serve(close, topK, wordText);
    if (chosen.length && opts.touch !== false) {
      // The recall is recorded with the skills it served: the session's outcome later becomes their trial.
      await this.store.recordRecall(this.namespace, {
        sessionId: opts.sessionId ?? null,
        // Stored: the goal is untrusted text like any other (secrets and personal data redacted).
        goal: redactText(goal),
        at: (opts.now ?? new Date()).toISOString(),
        items: chosen.map((c, rank) => ({ skillId: c.skill.id, rank, similarity: c.similarity })),
      });
      // The token is not read again here: the record is written later, and reading it now would take in a
      // change another process committed since ensure() without loading it.
    }
    const has = opts.tools ? toolMatcher(opts.tools) : null;
    return chosen.map(({ skill, similarity }) => {
      // An agent that named its tools is told which branches it cannot follow, instead of being handed them.
      const fit = has ? branchesFor(skill.body, has) : { body: skill.body, branches: branchesOf(skill.body) };
      const served: RecalledSkill = {
        id: skill.id,
        name: skill.name,
        similarity: Math.round(similarity * 10000) / 10000,
        toolsRequired: skill.toolsRequired,
        toolSequence: skill.toolSequence,
        branches: fit.branches,
        body: clip(fit.body, this.config.recall.maxBodyChars),
        description: skill.description,
        status: skill.status,
        eta: skill.eta,
        utility: skill.utility,
        kind: skill.kind,
        version: skill.version,
      };
      if (served.body !== fit.body) UNCLIPPED.set(served, fit.body);
      return served;
    });
  }
}

/** The whole body of a recalled skill whose `body` was clipped, kept beside the object (never serialised). */
const UNCLIPPED = new WeakMap<RecalledSkill, string>();

/**
 * A recalled skill's whole body: its `body` is clipped to maxBodyChars for callers that print it, while the
 * context pack makes the whole body fit the same budget by shortening it first (context-pack.ts). A skill that
 * did not come from this process's recall (read back from JSON) has only its clipped body.
 */
export function unclippedBody(skill: RecalledSkill): string {
  return UNCLIPPED.get(skill) ?? skill.body;
}

/**
 * What ranking reads of a skill: its words (name and description, as distinct stems joined by spaces) blended
 * into the order; near-ties go to the higher utility, then the higher eta.
 */
interface Rank {
  utility: number;
  eta: number;
  words: string;
  /** The main path's tools (toolsKey), for a recall that names the agent's tools. */
  tools: string;
}

function rankOf(s: Pick<Skill, 'utility' | 'eta' | 'name' | 'description' | 'toolSequence'>): Rank {
  return { utility: s.utility, eta: s.eta, words: skillWords(s), tools: toolsKey(s.toolSequence) };
}

/**
 * A main path's tools as one string (each name on its own line): what a rank keeps, one short string a skill, the
 * same string for every skill of one procedure (many share one), compared whole when the skill is read again.
 */
const TOOL_KEYS = new Map<string, string>();
function toolsKey(sequence: readonly string[]): string {
  const key = sequence.join('\n');
  let kept = TOOL_KEYS.get(key);
  if (kept === undefined) {
    if (TOOL_KEYS.size >= MAX_TOOL_KEYS) TOOL_KEYS.clear();
    TOOL_KEYS.set(key, key);
    kept = key;
  }
  return kept;
}
const MAX_TOOL_KEYS = 65_536;

/** Candidates ranked beyond topK when words take part in the order. */
const WORD_POOL = 2;
/** How much wider recall searches when it may only serve skills that use the agent's tools. */
const TOOLS_WIDTH = 4;

/**
 * Candidates in the order recall serves them: `similarity` becomes (1 - w) * cosine + w * the overlap of the
 * request's words with the skill's (name and description), each word weighted by how few of the candidates hold
 * it (distinctiveWeights); `cosine` keeps the embedding's similarity.
 */
export function rankByWords<S extends { words: string }>(
  candidates: readonly { id: string; skill: S; similarity: number }[],
  requestWords: ReadonlySet<string> | null,
  weight: number,
): { id: string; skill: S; similarity: number; cosine: number }[] {
  // Words weigh by how well they tell these candidates apart: the ones they all share decide nothing.
  const overlap =
    requestWords && weight > 0
      ? overlapScorer(requestWords, distinctiveWeights(candidates.map((c) => c.skill.words)))
      : null;
  // Copies of one procedure share their words: each distinct string is scored once.
  const scored = new Map<string, number>();
  const overlapOf = (words: string) => {
    let o = scored.get(words);
    if (o === undefined) {
      o = overlap!(words);
      scored.set(words, o);
    }
    return o;
  };
  // Built field by field: a spread of each candidate cost more than the rest of the ranking together.
  return candidates
    .map(({ id, skill, similarity }) => ({
      id,
      skill,
      cosine: similarity,
      similarity: overlap ? (1 - weight) * similarity + weight * overlapOf(skill.words) : similarity,
    }))
    .sort((a, b) => b.similarity - a.similarity);
}

/** A servable hit as ranked: its skill's rank and its best similarity. */
interface Candidate {
  id: string;
  skill: Rank;
  similarity: number;
}

const EXEMPLAR_MARK = '#';

/** The index ids of a skill's vectors: its id for the centroid, then id#1... for its exemplars. */
function entryIds(id: string): string[] {
  return [id, ...Array.from({ length: MAX_EXEMPLARS }, (_, i) => `${id}${EXEMPLAR_MARK}${i + 1}`)];
}

/** The vectors a skill is found by: its embedding first, then its exemplars. */
export function recallVectors(s: Pick<Skill, 'embedding' | 'exemplars'>, dims: number): Float32Array[] {
  return s.embedding ? [s.embedding, ...unpackExemplars(s.exemplars, dims)] : [];
}

/**
 * Index hits of several vectors per skill folded into one hit per skill, its best score, best first. The index
 * answers best first, so a skill's first hit is its best: one pass keeps those (a sort only if the input was
 * not in order).
 */
export function bestPerSkill(hits: readonly { id: string; score: number }[]): { id: string; score: number }[] {
  const seen = new Set<string>();
  const out: { id: string; score: number }[] = [];
  let ordered = true;
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i];
    if (i > 0 && h.score > hits[i - 1].score) ordered = false;
    const cut = h.id.indexOf(EXEMPLAR_MARK);
    const id = cut < 0 ? h.id : h.id.slice(0, cut);
    if (seen.has(id)) {
      if (!ordered) {
        const kept = out.find((o) => o.id === id)!;
        if (kept.score < h.score) kept.score = h.score;
      }
      continue;
    }
    seen.add(id);
    out.push({ id, score: h.score });
  }
  return ordered ? out : out.sort((a, b) => b.score - a.score);
}

/**
 * Among matches whose similarity is within `margin`, the higher utility wins (proven skills beat new ones),
 * then the higher eta (a skill with more evidence beats a thinly supported one).
 */
export function breakNearTies(
  ranked: { skill: Pick<Skill, 'utility'> & Partial<Pick<Skill, 'eta'>>; similarity: number }[],
  margin: number,
) {
  ranked.sort((a, b) => b.similarity - a.similarity);
  const better = (x: (typeof ranked)[number]['skill'], y: (typeof ranked)[number]['skill']) =>
    x.utility > y.utility || (x.utility === y.utility && (x.eta ?? 0) > (y.eta ?? 0));
  for (let i = 1; i < ranked.length; i++) {
    let j = i;
    while (
      j > 0 &&
      ranked[j - 1].similarity - ranked[j].similarity <= margin &&
      better(ranked[j].skill, ranked[j - 1].skill)
    ) {
      [ranked[j - 1], ranked[j]] = [ranked[j], ranked[j - 1]];
      j--;
    }
  }
}

/**
 * Exploration among near-ties: one of the matches within `margin` of the best is drawn with probability
 * proportional to exp(utility / temperature) and moved to the front.
 */
export function softmaxDraw(
  ranked: { skill: Pick<Skill, 'utility'>; similarity: number }[],
  margin: number,
  temperature: number,
  random: () => number,
) {
  if (ranked.length < 2) return;
  const best = Math.max(...ranked.map((r) => r.similarity));
  const group = ranked.filter((r) => best - r.similarity <= margin);
  if (group.length < 2) return;
  const maxU = Math.max(...group.map((g) => g.skill.utility));
  const weights = group.map((g) => Math.exp((g.skill.utility - maxU) / temperature));
  let x = random() * weights.reduce((a, b) => a + b, 0);
  let pick = group[group.length - 1];
  for (let i = 0; i < group.length; i++) {
    x -= weights[i];
    if (x <= 0) {
      pick = group[i];
      break;
    }
  }
  ranked.splice(ranked.indexOf(pick), 1);
  ranked.unshift(pick);
}
