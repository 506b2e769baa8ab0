/**
 * Branches on the agent's tools. One task is often done by agents that hold different tools: tau2's telecom
 * agents fix a phone themselves when they hold the device's tools, and otherwise look the line up and walk the
 * user through the fixes, the user acting on the phone; a fleet's read-only agents and those that may write do
 * the same task two ways. Their sessions share the goal and the first lookups, and no lookup's result tells them
 * apart: what parts them is which tools the agent could call. A consensus over both is a path neither took (the
 * device steps half the sessions never called, cut short for the other half). This module finds such a split of
 * a task's successful sessions: a set of tools that some sessions called and the others never did, several of
 * them in every session that used any. The procedure is then the path of the sessions that needed none of them,
 * and a branch says: if you can call that tool, follow the others' path. Pure.
 */

/** Each side of a split needs at least this many successful sessions: a toolset seen once is no rule. */
export const MIN_TOOLSET_SESSIONS = 3;
/**
 * A toolset is a kit (a device's checks and switches), not a tool or two that some variants of a task call: at
 * least this many tools, and at least as many as the other side used in all.
 */
const MIN_TOOLSET_SIZE = 3;
/**
 * Each session of the toolset's side called at least this many of its tools. On the bundled traces a split that
 * is a task's variants (BFCL's file tasks, a retail cancellation that also returned items) has a session with two
 * at most, tau2's device tools at least five in each.
 */
const MIN_TOOLSET_CALLS = 3;

export interface ToolsetSplit {
  /** The tool that tells the two apart: every session of the toolset's side called it (the largest toolset's). */
  tool: string;
  /** The tools only the toolset's side called, sorted. */
  tools: string[];
  /** Indices of the paths that used the toolset. */
  with: number[];
  /** Indices of the paths that used none of it. */
  without: number[];
  /** The toolset's tools that every path of its side called, sorted (`tool` among them). */
  calledByAll: string[];
}

/**
 * The split of successful sessions' tool paths by a toolset, or null when there is none. For each tool that
 * at least MIN_TOOLSET_SESSIONS sessions called and at least as many did not, its callers are one side and the
 * tools no other session called are its toolset; the split holds when that toolset has MIN_TOOLSET_SIZE tools and
 * no fewer than the other side called in all, every caller used MIN_TOOLSET_CALLS of them, and each side has
 * MIN_TOOLSET_SESSIONS sessions. Of several, the
 * largest toolset wins, then the most sessions on its side, then the tool's name: the same paths always give
 * the same split.
 */
export function toolsetSplit(paths: readonly (readonly string[])[]): ToolsetSplit | null {
  const n = paths.length;
  if (n < 2 * MIN_TOOLSET_SESSIONS) return null;
  const sets = paths.map((p) => new Set(p));
  const callers = new Map<string, number[]>();
  sets.forEach((set, i) => {
    for (const tool of set) {
      let list = callers.get(tool);
      if (!list) callers.set(tool, (list = []));
      list.push(i);
    }
  });
  let best: ToolsetSplit | null = null;
  for (const [tool, side] of [...callers].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (side.length < MIN_TOOLSET_SESSIONS || n - side.length < MIN_TOOLSET_SESSIONS) continue;
    const inSide = new Set(side);
    const tools = [...callers]
      .filter(([, users]) => users.every((i) => inSide.has(i)))
      .map(([t]) => t)
      .sort();
    if (tools.length < MIN_TOOLSET_SIZE) continue;
    const own = new Set(tools);
    const used = (i: number) => [...sets[i]].filter((t) => own.has(t)).length;
    if (side.some((i) => used(i) < MIN_TOOLSET_CALLS)) continue;
    const without = paths.map((_, i) => i).filter((i) => !inSide.has(i));
    if (new Set(without.flatMap((i) => paths[i])).size > tools.length) continue;
    const better =
      !best ||
      tools.length > best.tools.length ||
      (tools.length === best.tools.length && side.length > best.with.length);
    if (!better) continue;
    const calledByAll = tools.filter((t) => side.every((i) => sets[i].has(t)));
    best = { tool, tools, with: [...side], without, calledByAll };
  }
  return best;
}
