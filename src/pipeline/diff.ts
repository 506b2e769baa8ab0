import { type DiffHunk, diffHunks } from '../domain/line-diff.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { SkillVersion, Store } from '../store/store.js';
import { restamped } from './explain.js';

/** One version of a skill as a diff names it. */
export interface DiffSide {
  version: string;
  /** The skill's name in that version (a rename changes it). */
  name: string;
  reason: string;
  createdAt: string;
  /**
   * Its procedure reads as the version before it (explain.ts: restamped): a learned skill's patch update, a rename,
   * or a person's edit that changed wording only.
   */
  sameProcedure: boolean;
}

/** What changed in a skill's SKILL.md between two of its versions. */
export interface SkillDiff {
  id: string;
  name: string;
  /** Null when the skill has one version: nothing to compare. */
  from: DiffSide | null;
  to: DiffSide;
  /** The changed lines of the SKILL.md with three lines of context each (`diff -u`); none when equal. */
  hunks: DiffHunk[];
}

/**
 * The SKILL.md of two versions of a skill, compared: `to` (default: its latest version) against `from` (default:
 * the version before `to`). Null when there is no such skill; a version it never had is a NotFoundError naming
 * the versions it has. Read-only.
 */
export async function diffSkill(
  store: Store,
  namespace: string,
  idOrName: string,
  opts: { from?: string; to?: string } = {},
): Promise<SkillDiff | null> {
  const skill = await store.getSkill(namespace, idOrName);
  if (!skill) return null;
  const versions = await store.skillVersions(skill.id);
  const find = (version: string) => {
    const v = versions.find((x) => x.version === version);
    if (!v)
      throw new NotFoundError(
        `${skill.name} has no version ${version} (its versions: ${versions.map((x) => x.version).join(', ')})`,
      );
    return v;
  };
  const to = opts.to ? find(opts.to) : versions[versions.length - 1];
  if (!to) throw new NotFoundError(`${skill.name} has no stored version`);
  const from = opts.from ? find(opts.from) : (versions[versions.indexOf(to) - 1] ?? null);
  const side = (v: SkillVersion): DiffSide => ({
    version: v.version,
    name: /^name:[ \t]*"?([^"\n]+?)"?[ \t]*$/m.exec(v.skillMd)?.[1] ?? skill.name,
    reason: v.reason,
    createdAt: v.createdAt,
    sameProcedure: restamped(skill, v, versions[versions.indexOf(v) - 1] ?? null),
  });
  return {
    id: skill.id,
    name: skill.name,
    from: from ? side(from) : null,
    to: side(to),
    hunks: from ? diffHunks(from.skillMd, to.skillMd) : [],
  };
}
