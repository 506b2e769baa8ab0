import type { SkillsmithConfig } from '../config/config.js';
import { clip } from '../domain/context-pack.js';
import { normalizeGoal } from '../domain/normalize-goal.js';
import type { Skill } from '../domain/types.js';
import type { Embedder } from '../embedders/embedder.js';
import { VectorIndex } from '../index/vector-index.js';
import { GoalMean, removeDirection } from '../domain/goal-mean.js';
import { MAX_EXEMPLARS, unpackExemplars } from '../domain/exemplars.js';
import type { Store } from '../store/store.js';
import { mulberry32 } from '../support/random.js';
import type { Logger } from '../support/log.js';
import { redactText } from '../domain/redact.js';

/** One recalled skill: the stable JSON shape of `skillsmith recall --json`, plus a few extras. */
export interface RecalledSkill {
  id: string;
  name: string;
  similarity: number;
  toolsRequired: string[];
  toolSequence: string[];
  /** The body, clipped to maxRecallBodyChars with an explicit marker. */
  body: string;
  description: string;
  status: Skill['status'];
  eta: number;
  utility: number;
  kind: Skill['kind'];
  version: string;
}

/** A skill may be served when a person has not disabled it, it is internal, live, not retired and above the eta floor. */
export function isRecallable(s: Skill, retireEta: number): boolean {
  return s.enabled && s.corpus === 'internal' && !s.supersededBy && s.status !== 'retired' && s.eta >= retireEta;
}

/**
 * Recall from an in-memory index of the recallable skills of one namespace. The index is loaded once and
 * reloaded only when the store reports a change, so recall does no store round trip but a version check.
 */
export class RecallIndex {
  private index: VectorIndex | null = null;
  private skills = new Map<string, Skill>();
  private token: string | null = null;
  private stale = true;
  /** The namespace's mean goal direction, removed from skill and query vectors before comparing them. */
  private center: Float32Array | null = null;
  /** Centering strength in use: the configured one, scaled by how much the namespace's mean can be trusted. */
  private strength = 0;
  private random: () => number;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly namespace: string,
    private readonly config: SkillsmithConfig,
    private readonly log?: Logger,
  ) {
    this.random = mulberry32(config.recall.seed);
  }

  /** Marks the index for reload (after a write in this process). */
  invalidate() {
    this.stale = true;
  }

  private async ensure() {
    const token = await this.store.changeToken();
    if (!this.stale && this.index && token === this.token) return;
    let strength = this.config.recall.centering;
    let all: Skill[];
    let mean: string | null = null;
    try {
      all = await this.store.listSkills(this.namespace, { corpus: 'internal' });
      if (strength > 0) mean = await this.store.getState(this.namespace, `goal-mean:${this.embedder.id}`);
    } catch (e) {
      // A networked store that is restarting: keep serving the index already loaded; the next recall retries.
      if (this.index) return;
      throw e;
    }
    const goalMean = GoalMean.fromJSON(mean, this.embedder.dimensions);
    strength *= goalMean.trust();
    this.center = strength > 0 ? goalMean.direction() : null;
    this.strength = strength;
    const index = new VectorIndex(this.embedder.dimensions);
    const skills = new Map<string, Skill>();
    let foreign = 0;
    for (const s of all) {
      if (!isRecallable(s, this.config.lifecycle.retireEta)) continue;
      if (s.embedding && s.embedderId !== this.embedder.id) foreign++;
      if (!s.embedding || s.embedderId !== this.embedder.id || s.embedding.length !== this.embedder.dimensions) continue;
      for (const [i, v] of recallVectors(s, this.embedder.dimensions).entries()) index.add(i === 0 ? s.id : `${s.id}${EXEMPLAR_MARK}${i}`, removeDirection(v, this.center, strength));
      skills.set(s.id, s);
    }
    this.index = index;
    this.skills = skills;
    this.token = token;
    this.stale = false;
    // Said once per load, not per recall: vectors of two models are never compared, so these are not served.
    if (foreign) this.log?.warn(`${foreign} recallable skills were embedded by another model than ${this.embedder.id} and are not served: run "skillsmith reembed"`, { namespace: this.namespace });
  }

  get size(): number {
    return this.skills.size;
  }

  async recall(goal: string, opts: { topK?: number; threshold: number; touch?: boolean; now?: Date; sessionId?: string | null }): Promise<RecalledSkill[]> {
    if (!goal.trim()) return [];
    await this.ensure();
    if (this.skills.size === 0) return [];
    const topK = opts.topK ?? this.config.recall.topK;
    const text = normalizeGoal(goal);
    const raw = this.embedder.embedSync ? this.embedder.embedSync(text) : (await this.embedder.embed([text]))[0];
    const vec = removeDirection(raw, this.center, this.strength);
    // Several vectors per skill (its centroid and its exemplars): a skill scores its best one.
    const hits = bestPerSkill(this.index!.search(vec, (topK + 8) * (MAX_EXEMPLARS + 1), { minScore: opts.threshold }));
    // A second skill must be competitive with the best match, not merely above the absolute threshold.
    const floor = hits.length ? hits[0].score - this.config.recall.relativeMargin : 0;
    const ranked = hits.filter((h) => h.score >= floor).map((h) => ({ skill: this.skills.get(h.id)!, similarity: h.score }));
    breakNearTies(ranked, this.config.recall.tieMargin);
    if (this.config.recall.softmaxTemperature > 0) {
      softmaxDraw(ranked, this.config.recall.tieMargin, this.config.recall.softmaxTemperature, this.random);
    }
    const chosen = ranked.slice(0, topK);
    if (chosen.length && opts.touch !== false) {
      // The recall is recorded with the skills it served: the session's outcome later becomes their trial.
      await this.store.recordRecall(this.namespace, {
        sessionId: opts.sessionId ?? null,
        // Stored: the goal is untrusted text like any other (secrets and personal data redacted).
        goal: redactText(goal),
        at: (opts.now ?? new Date()).toISOString(),
        items: chosen.map((c, rank) => ({ skillId: c.skill.id, rank, similarity: c.similarity })),
      });
      this.token = await this.store.changeToken();
    }
    return chosen.map(({ skill, similarity }) => ({
      id: skill.id,
      name: skill.name,
      similarity: Math.round(similarity * 10000) / 10000,
      toolsRequired: skill.toolsRequired,
      toolSequence: skill.toolSequence,
      body: clip(skill.body, this.config.recall.maxBodyChars),
      description: skill.description,
      status: skill.status,
      eta: skill.eta,
      utility: skill.utility,
      kind: skill.kind,
      version: skill.version,
    }));
  }
}

const EXEMPLAR_MARK = '#';

/** The vectors a skill is found by: its embedding first, then its exemplars. */
export function recallVectors(s: Pick<Skill, 'embedding' | 'exemplars'>, dims: number): Float32Array[] {
  return s.embedding ? [s.embedding, ...unpackExemplars(s.exemplars, dims)] : [];
}

/** Index hits of several vectors per skill folded into one hit per skill, its best score, best first. */
export function bestPerSkill(hits: readonly { id: string; score: number }[]): { id: string; score: number }[] {
  const best = new Map<string, number>();
  for (const h of hits) {
    const cut = h.id.indexOf(EXEMPLAR_MARK);
    const id = cut < 0 ? h.id : h.id.slice(0, cut);
    if (!best.has(id) || best.get(id)! < h.score) best.set(id, h.score);
  }
  return [...best.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/**
 * Among matches whose similarity is within `margin`, the higher utility wins (proven skills beat new ones),
 * then the higher eta (a skill with more evidence beats a thinly supported one).
 */
export function breakNearTies(ranked: { skill: Pick<Skill, 'utility'> & Partial<Pick<Skill, 'eta'>>; similarity: number }[], margin: number) {
  ranked.sort((a, b) => b.similarity - a.similarity);
  const better = (x: (typeof ranked)[number]['skill'], y: (typeof ranked)[number]['skill']) => x.utility > y.utility || (x.utility === y.utility && (x.eta ?? 0) > (y.eta ?? 0));
  for (let i = 1; i < ranked.length; i++) {
    let j = i;
    while (j > 0 && ranked[j - 1].similarity - ranked[j].similarity <= margin && better(ranked[j].skill, ranked[j - 1].skill)) {
      [ranked[j - 1], ranked[j]] = [ranked[j], ranked[j - 1]];
      j--;
    }
  }
}

/**
 * Exploration among near-ties: one of the matches within `margin` of the best is drawn with probability
 * proportional to exp(utility / temperature) and moved to the front.
 */
export function softmaxDraw(ranked: { skill: Pick<Skill, 'utility'>; similarity: number }[], margin: number, temperature: number, random: () => number) {
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

