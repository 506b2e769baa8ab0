import { givenNameOf } from '../domain/learned-by.js';
import type { Skill } from '../domain/types.js';
import { VectorIndex } from '../vector/vector-index.js';
import { dot } from '../vector/vector-math.js';

/** The live internal skills of a namespace during a pass, with a vector index over their embeddings. */
export class SkillCatalog {
  private readonly byId = new Map<string, Skill>();
  /** Names no new skill may take, each with the skill that had it: superseded and removed skills' names, and the names a person renamed a skill away from. */
  private readonly historic = new Map<string, string>();
  private index: VectorIndex;

  constructor(
    private readonly dims: number,
    skills: Skill[],
    private readonly embedderId: string,
  ) {
    this.index = new VectorIndex(dims);
    for (const s of skills) this.put(s);
  }

  put(skill: Skill) {
    // A superseded skill keeps its name in the history (explain, versions): no new skill may take it.
    if (skill.supersededBy) this.historic.set(skill.name, skill.id);
    // Nor a name a person renamed a skill away from: a lookup by it says what the skill is called now, and a
    // rename takes such a name only when forced (skills rename --force).
    for (const former of givenNameOf(skill.skillMd)?.formerNames ?? [])
      if (!this.historic.has(former)) this.historic.set(former, skill.id);
    if (skill.supersededBy || skill.corpus !== 'internal') {
      this.byId.delete(skill.id);
      this.index.remove(skill.id);
      return;
    }
    this.byId.set(skill.id, skill);
    if (skill.embedding && skill.embedderId === this.embedderId && skill.embedding.length === this.dims)
      this.index.add(skill.id, skill.embedding);
  }

  remove(id: string) {
    const gone = this.byId.get(id);
    if (gone) this.historic.set(gone.name, gone.id);
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

  /** The names a skill may not take: every other live skill's, and the historic ones but its own (`except`: its id). */
  names(except?: string): Set<string> {
    const own = except ? this.byId.get(except)?.name : undefined;
    return new Set([
      ...[...this.byId.values()].filter((s) => s.id !== except).map((s) => s.name),
      ...[...this.historic].filter(([n, holder]) => n !== own && holder !== except).map(([n]) => n),
    ]);
  }

  /**
   * How alike `vector` is to a skill's recall vector (cosine of unit vectors, as `neighbours` scores it); null
   * when the skill has no vector of this embedder.
   */
  similarity(vector: Float32Array, skill: Skill): number | null {
    const e = skill.embedding;
    if (!e || skill.embedderId !== this.embedderId || e.length !== this.dims || vector.length !== this.dims)
      return null;
    return dot(vector, e);
  }

  neighbours(vector: Float32Array, minScore: number, exclude?: string): { skill: Skill; similarity: number }[] {
    return this.index
      .search(vector, 5, { minScore, filter: (id) => id !== exclude })
      .map((h) => ({ skill: this.byId.get(h.id)!, similarity: h.score }));
  }
}
