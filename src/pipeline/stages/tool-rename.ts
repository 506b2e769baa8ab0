import { stepKeysOf } from '../../domain/commands.js';
import { unpackExemplars } from '../../domain/exemplars.js';
import { editOf, givenNameOf, learnedByOf } from '../../domain/learned-by.js';
import { retitle } from '../../domain/skill-rename.js';
import { strongerThenOlderFirst } from '../../domain/skill-order.js';
import { detectSpan } from '../../domain/spans.js';
import {
  goalsRecall,
  otherSituation,
  type RenamedTool,
  renamedSteps,
  renameSettled,
  requestsApart,
} from '../../domain/tool-rename.js';
import type { Session, Skill } from '../../domain/types.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import type { SkillCatalog } from '../skill-catalog.js';
import { mergeExemplars, storedExemplars } from '../skill-embedding.js';
import { renderStoredSkill } from '../render-skill-md.js';
import { withSupport } from '../support.js';

/** What the stage did to one pair: the older skill superseded, or (edited by a person) kept with a suggestion. */
export interface Succession {
  successor: Skill;
  predecessor: Skill;
  renamed: RenamedTool[];
  /** The predecessor is a person's text: it was kept, and now says what its sessions suggest (the successor's tools). */
  keptEdit?: true;
}

/**
 * A tool renamed under learned skills (an MCP server's update renames `update_address` to `set_address`): the runs
 * with the new name are learned as a skill of their own, while the skill of the old name stays live and is
 * recalled for the same requests. Each live learned skill of a group this pass examined is compared with the other
 * live learned skills; one whose procedure is the same step for step but for renamed tools (domain/tool-rename.ts:
 * renamedSteps), which the newer skill's requests would find (goalsRecall, at the recall threshold), is superseded
 * by it when the two groups' sessions say the tool was renamed (renameSettled: same arguments and answer fields,
 * and the old name no longer worked once the new one did). The successor takes the old skill's request wordings
 * (exemplars), so the requests the old one was learned from find it; its counts and sources stay its own, and the
 * old skill keeps its track record, with the lineage. A skill a person edited is not superseded: it is kept, and
 * says what its sessions suggest (`sessions-suggest`), as a pass that would rewrite it does.
 */
export async function succeedRenamedTools(
  deps: PipelineDeps,
  input: {
    namespace: string;
    skills: SkillCatalog;
    /** The clusters this pass examined: only pairs with a skill of one of them can have new evidence. */
    examined: ReadonlySet<string>;
    actor: string;
    dryRun: boolean;
  },
): Promise<Succession[]> {
  const done: Succession[] = [];
  const dims = deps.embedder.dimensions;
  const learned = input.skills.live().filter((s) => s.clusterId && s.embedding && s.embedderId === deps.embedder.id);
  // Skills by the steps they take where (a renamed procedure keeps at least one step, at its place): a skill is
  // compared only with those that share one, not with every live skill.
  const steps = new Map(learned.map((s) => [s.id, stepKeysOf(s.toolSequence, s.body)]));
  const at = (seq: readonly string[], i: number) => `${seq.length}\u0000${i}\u0000${seq[i]}`;
  const byStep = new Map<string, string[]>();
  for (const [id, seq] of steps)
    for (let i = 0; i < seq.length; i++) byStep.set(at(seq, i), [...(byStep.get(at(seq, i)) ?? []), id]);
  const alike = (id: string) => {
    const seq = steps.get(id)!;
    return new Set(seq.flatMap((_, i) => byStep.get(at(seq, i)) ?? []).filter((other) => other !== id));
  };
  // The pairs that may have new evidence: a skill of a group this pass examined, either way round, with each skill
  // that takes one of its steps where it does.
  const pairs = new Map<string, Set<string>>();
  const pair = (successor: string, predecessor: string) =>
    pairs.set(successor, (pairs.get(successor) ?? new Set()).add(predecessor));
  for (const s of learned)
    if (input.examined.has(s.clusterId!))
      for (const other of alike(s.id)) {
        pair(s.id, other);
        pair(other, s.id);
      }
  const successors = learned
    .filter((s) => pairs.has(s.id) && s.enabled && s.status !== 'retired')
    .sort(strongerThenOlderFirst);
  // Each skill's sessions are read once a pass: a skill is compared with every skill that shares a step with it.
  const read = sessionReader(deps, input.namespace);
  for (const candidate of successors) {
    let successor = input.skills.get(candidate.id);
    if (!successor) continue;
    const after = steps.get(successor.id)!;
    const goals = successor.exemplars ? unpackExemplars(successor.exemplars, dims) : [successor.embedding!];
    for (const id of pairs.get(successor.id)!) {
      const predecessor = input.skills.get(id);
      if (!predecessor) continue;
      const renamed = renamedSteps(steps.get(predecessor.id)!, after);
      if (!renamed) continue;
      const vectors = [predecessor.embedding!, ...unpackExemplars(predecessor.exemplars, dims)];
      if (!goalsRecall(goals, vectors, deps.thresholds.recall)) continue;
      const sessions = await sessionsOfKind(read, [predecessor, successor]);
      const log = deps.log.child('pass');
      let verdict = renameSettled(renamed, sessions);
      const rules = { minSteps: deps.config.synthesis.minSteps, thinkTools: deps.config.synthesis.thinkTools };
      const spans = sessions.flatMap((s) => detectSpan(s, rules) ?? []);
      const situation = verdict.settled ? otherSituation(renamed, spans) : null;
      if (situation)
        verdict = {
          settled: false,
          reason: `another situation: ${situation.tool} shows ${situation.path} in ${JSON.stringify(situation.in)} for one of them`,
        };
      const word = verdict.settled ? requestsApart(renamed, sessions) : null;
      if (word)
        verdict = { settled: false, reason: `another request: "${word}" is in the requests of one of them only` };
      if (!verdict.settled) {
        log.debug('renamed tool not yet settled', {
          skill: successor.name,
          older: predecessor.name,
          reason: verdict.reason,
        });
        continue;
      }
      const now = deps.now().toISOString();
      const mark = editOf(predecessor.skillMd);
      if (mark) {
        // A person's text: kept, and it says what its sessions now suggest (written once, not each pass).
        if (mark.suggests?.join(' ') === successor.toolSequence.join(' ')) continue;
        const kept = withSupport({ ...predecessor, updatedAt: now }, predecessor, deps.config.license, undefined, {
          ...mark,
          suggests: [...successor.toolSequence],
        });
        if (!input.dryRun) {
          const saved = await deps.store.writeSkill({
            action: 'reinforce',
            skill: kept,
            parents: [],
            actor: input.actor,
            detail: { keptEdit: true, renamed, successor: successor.id },
            at: now,
          });
          input.skills.put(saved);
        }
        done.push({ successor, predecessor: kept, renamed, keptEdit: true });
        log.info('kept an edited skill whose tool was renamed', { skill: predecessor.name, successor: successor.name });
        continue;
      }
      const heir: Skill = heirNamed(
        {
          ...successor,
          ...(successor.exemplars ? mergeExemplars(successor, predecessor, dims) : storedExemplars(predecessor)),
          updatedAt: now,
        },
        predecessor,
        deps.config.license,
      );
      if (!input.dryRun) {
        const saved = await deps.store.writeSkill({
          action: 'reinforce',
          skill: heir,
          supersedes: predecessor.id,
          parents: [],
          actor: input.actor,
          detail: { renamed, reason: 'the same procedure with a renamed tool' },
          clusterId: successor.clusterId,
          at: now,
        });
        input.skills.remove(predecessor.id);
        input.skills.put(saved);
        successor = saved;
      } else {
        input.skills.remove(predecessor.id);
        input.skills.put(heir);
        successor = heir;
      }
      done.push({ successor, predecessor, renamed });
      log.info('skill superseded: its tool was renamed', {
        skill: successor.name,
        superseded: predecessor.name,
        renamed: renamed.map((r) => `${r.from} -> ${r.to}`).join(', '),
      });
    }
  }
  return done;
}

/**
 * The successor under the name a person gave the skill it supersedes (skills rename): the task is the one they named,
 * done with a renamed tool, so their planners keep finding it by that name. Its own name becomes a former name (a
 * lookup by it says what it is now). A successor a person named, or a predecessor nobody named, keeps its name.
 */
function heirNamed(heir: Skill, predecessor: Skill, license: string): Skill {
  const given = givenNameOf(predecessor.skillMd);
  const learnedBy = learnedByOf(heir.skillMd);
  if (!given || givenNameOf(heir.skillMd) || !learnedBy || heir.name === predecessor.name) return heir;
  const said = retitle({ description: heir.description, body: heir.body }, predecessor.name);
  const named: Skill = { ...heir, name: predecessor.name, description: said.description, body: said.body };
  const formerNames = [heir.name, ...given.formerNames.filter((n) => n !== heir.name && n !== predecessor.name)];
  return {
    ...named,
    skillMd: renderStoredSkill(named, { license, learnedBy, given: { namedBy: given.namedBy, formerNames } }),
  };
}

/**
 * The sessions of one skill's group (the newest `maxClusterSessions`) and those it was learned from, each skill's read
 * once for the reader's life (a pass): keyed by the skill, its group and its sources, which a succession can change.
 */
function sessionReader(deps: PipelineDeps, namespace: string) {
  const cap = deps.config.synthesis.maxClusterSessions;
  const read = new Map<string, Promise<Session[]>>();
  return (skill: Skill): Promise<Session[]> => {
    const key = `${skill.id}\u0000${skill.clusterId}\u0000${skill.sourceSessions.length}\u0000${skill.sourceSessions.at(-1)}`;
    let sessions = read.get(key);
    if (!sessions) {
      sessions = (async () => {
        const ids = new Set((await deps.store.clusterMembers(namespace, skill.clusterId!)).slice(-cap));
        for (const id of skill.sourceSessions.slice(-cap)) ids.add(id);
        return deps.store.getSessions(namespace, [...ids]);
      })();
      read.set(key, sessions);
    }
    return sessions;
  };
}

/** The sessions of the skills' groups and those they were learned from, each once, in the order the store holds them. */
async function sessionsOfKind(
  read: (skill: Skill) => Promise<Session[]>,
  skills: readonly Skill[],
): Promise<Session[]> {
  const byId = new Map<string, Session>();
  for (const skill of skills) for (const s of await read(skill)) byId.set(s.id, s);
  return [...byId.values()].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
}
