// The write rules of the store, decided once for every back end. Each function is pure: it takes a request
// and the current rows it needs (read by the back end inside its transaction) and returns what to write: the
// rows, the audit records and the events, or a typed rejection. A back end only executes the plan, in one
// transaction, in its own SQL dialect.
import { isTrial } from '../domain/lifecycle.js';
import { JUDGE_ACTOR } from '../domain/replace-trial.js';
import type { AuditRecord, Skill } from '../domain/types.js';
import type {
  EmbeddingReplacement,
  FeedbackRecord,
  FeedbackRequest,
  RecentTrials,
  ForgetOptions,
  ForgottenSession,
  SkillFile,
  SkillVersion,
  SkillWrite,
} from './store.js';
import { ConflictError } from '../errors/conflict-error.js';

/** One audit record to append (the store hands out its id). */
export type AuditEntry = Omit<AuditRecord, 'id'>;

/** One event to append (the store hands out its id). */
export interface EventEntry {
  namespace: string;
  at: string;
  type: string;
  skillId: string | null;
  payload: Record<string, unknown>;
}

/** The audit records and events a write appends, in order, in the write's own transaction. */
export interface Outbox {
  audit: AuditEntry[];
  events: EventEntry[];
  /** Whether what recall serves or shows of a skill changed: other processes reload their index. */
  skillsChanged: boolean;
}

/**
 * A change to existing rows, as both dialects say it: an UPDATE of the `set` columns when `set` is given, else a
 * DELETE; `where` is a conjunction of column equalities. Booleans are written as the back end stores them.
 */
export interface RowChange {
  table: 'skills' | 'clusters' | 'skill_versions' | 'provenance' | 'feedback' | 'recall_items' | 'skill_files';
  set?: Record<string, string | number | boolean | null>;
  where: Record<string, string>;
}

/** Why a write was refused: nothing of it is written. */
export interface WriteRejection {
  rejected: true;
  code: 'supersede-target-not-live' | 'feedback-key-reused';
  message: string;
}

/** A refused write, as the store throws it. */
export class WriteRejectedError extends ConflictError {
  /** Why the plan refused the write (e.g. 'supersede-target-not-live'). */
  readonly reason: WriteRejection['code'];
  constructor(rejection: WriteRejection) {
    super(rejection.message);
    this.reason = rejection.code;
  }
}

export function isRejection(x: unknown): x is WriteRejection {
  return typeof x === 'object' && x !== null && (x as WriteRejection).rejected === true;
}

/** The plan, or the rejection thrown as a `WriteRejectedError`. */
export function accepted<T>(plan: T | WriteRejection): T {
  if (isRejection(plan)) throw new WriteRejectedError(plan);
  return plan;
}

// ── skill writes ─────────────────────────────────────────────────────────────

/** The event a skill write emits. */
export function eventType(action: SkillWrite['action']): string {
  switch (action) {
    case 'add':
    case 'supersede':
      return 'skill.created';
    case 'update':
      return 'skill.updated';
    case 'reinforce':
      return 'skill.reinforced';
    case 'import':
      return 'skill.imported';
    case 'promote':
      return 'skill.promoted';
    case 'rename':
      return 'skill.renamed';
    case 'edit':
      return 'skill.edited';
    case 'revert':
      return 'skill.reverted';
    case 'revise':
      return 'skill.revised';
  }
}

export interface ProvenanceInsert {
  skillId: string;
  sourceKind: string;
  sourceId: string;
  version: string;
  createdAt: string;
}

export interface SkillWritePlan extends Outbox {
  /** The row to insert, or to rewrite when its id exists (see `skillInsertSql`). */
  skill: Skill;
  /** Before the row is written: the live row it replaces is marked superseded by it. */
  supersede: RowChange | null;
  /** Parent rows (an existing parent row is kept). */
  provenance: ProvenanceInsert[];
  /** Parent rows deleted before the row is written (SkillWrite.dropParents). */
  dropProvenance: RowChange[];
  /**
   * The version row (an existing one takes its text, keeping its reason and time: a reinforce, which changes the
   * counts and sources its text states, not its version, amends the row of the version it has).
   */
  version: SkillVersion;
  /** The folder files of this version, replacing (`clear`) any stored for it. */
  files: { skillId: string; version: string; files: SkillFile[]; clear: RowChange } | null;
  /** After the row is written: the cluster it was learned from links to it, clean and passed at `at`. */
  linkCluster: RowChange | null;
}

/** What a skill write needs to know of the stored rows. */
export interface SkillWriteCurrent {
  /** With `supersedes`: the row it names in the skill's namespace (null when there is none). */
  superseded: { supersededBy: string | null } | null;
}

/** What `writeSkill` writes: rows, provenance, version, files, cluster link, one audit record and its events. */
/** A write's detail without the ids of sessions it lists (a revise's `revokedSessions`). */
function withoutSessionIds(detail: Record<string, unknown>): Record<string, unknown> {
  if (!('revokedSessions' in detail)) return detail;
  const { revokedSessions: _ids, ...rest } = detail;
  return rest;
}

export function planSkillWrite(w: SkillWrite, current: SkillWriteCurrent): SkillWritePlan | WriteRejection {
  const s = w.skill;
  if (w.supersedes && (!current.superseded || current.superseded.supersededBy !== null)) {
    return {
      rejected: true,
      code: 'supersede-target-not-live',
      message: `cannot supersede ${w.supersedes}: not a live skill in ${s.namespace}`,
    };
  }
  const detail = { ...w.detail, version: s.version, parents: w.parents.length, supersedes: w.supersedes ?? null };
  const events: EventEntry[] = [
    {
      namespace: s.namespace,
      at: w.at,
      type: eventType(w.action),
      skillId: s.id,
      // The event says how many sources a revise took out, not which: events are not rewritten when a session is
      // forgotten (the audit record, which explain reads, is).
      payload: { name: s.name, ...withoutSessionIds(detail) },
    },
  ];
  // A pass that changes a skill's status (sources reported failed retire it; its group learned from again brings it
  // back) says so as a trial's status change does.
  if (w.before && w.before.status !== s.status) {
    const at = { namespace: s.namespace, at: w.at, skillId: s.id };
    events.push({
      ...at,
      type: 'skill.status_changed',
      payload: { name: s.name, from: w.before.status, to: s.status },
    });
    if (s.status === 'retired') events.push({ ...at, type: 'skill.retired', payload: { name: s.name } });
  }
  if (w.supersedes)
    events.push({
      namespace: s.namespace,
      at: w.at,
      type: 'skill.superseded',
      skillId: w.supersedes,
      payload: { by: s.id },
    });
  return {
    skill: s,
    supersede: w.supersedes
      ? {
          table: 'skills',
          set: { superseded_by: s.id, updated_at: w.at },
          where: { namespace: s.namespace, id: w.supersedes },
        }
      : null,
    provenance: w.parents.map((p) => ({
      skillId: s.id,
      sourceKind: p.kind,
      sourceId: p.id,
      version: s.version,
      createdAt: w.at,
    })),
    dropProvenance: (w.dropParents ?? []).map((id) => ({
      table: 'provenance' as const,
      where: { skill_id: s.id, source_kind: 'episodic', source_id: id },
    })),
    version: {
      skillId: s.id,
      version: s.version,
      skillMd: s.skillMd,
      toolSequence: s.toolSequence,
      reason: w.action,
      createdAt: w.at,
    },
    files: w.files
      ? {
          skillId: s.id,
          version: s.version,
          files: w.files,
          clear: { table: 'skill_files', where: { skill_id: s.id, version: s.version } },
        }
      : null,
    linkCluster: w.clusterId
      ? {
          table: 'clusters',
          set: { skill_id: s.id, dirty: false, last_pass_at: w.at },
          where: { namespace: s.namespace, id: w.clusterId },
        }
      : null,
    audit: [
      {
        namespace: s.namespace,
        at: w.at,
        actor: w.actor,
        action: `skill.${w.action}`,
        subjectKind: 'skill',
        subjectId: s.id,
        detail,
      },
    ],
    events,
    skillsChanged: true,
  };
}

// ── feedback ─────────────────────────────────────────────────────────────────

/** A new feedback row: the record as `feedbackHistory` reads it (without its id), with namespace and utility before. */
export type FeedbackInsert = Omit<FeedbackRecord, 'id' | 'replacedBy'> & {
  namespace: string;
  utilityBefore: number;
  utilityAfter: number;
  /** The idempotency key it was given under (hashed), or null. */
  feedbackKey: string | null;
};

export interface FeedbackPlan extends Outbox {
  /** The lifecycle columns of the skill's row. */
  update: RowChange;
  /** The new row; null when a judged trial is only taken back (FeedbackRequest.withdraw). */
  feedback: FeedbackInsert | null;
  /** The skill as the row holds it after the write. */
  after: Skill;
  /**
   * A judged trial this one replaces (FeedbackRequest.replaces): its row, marked replaced by the new one, and the
   * rows after it restated as the replay told them.
   */
  replaced?: { id: number; restated: FeedbackRestatement[] };
}

/** A feedback row's before and after as a replay tells them again. */
export interface FeedbackRestatement {
  id: number;
  etaBefore: number;
  etaAfter: number;
  statusBefore: string;
  statusAfter: string;
  utilityBefore: number;
  utilityAfter: number;
}

/** The trial a session gave a skill before, as the store found it. */
export interface EarlierTrial {
  id: number;
  signal: string;
  actor: string | null;
}

/**
 * What a once-per-session trial does, given the session's earlier trial of the skill: `new` (none), `replace` (one
 * that an actor of `replaces` gave, unless this is that actor's same signal again), else `tried` (it counts once).
 */
export function trialStanding(req: FeedbackRequest, earlier: EarlierTrial | null): 'new' | 'tried' | 'replace' {
  if (!feedbackNeedsTrialCheck(req) || !earlier) return 'new';
  const by = earlier.actor;
  const replaceable = by !== null && !!req.replaces?.actors.includes(by);
  if (replaceable && !(by === req.actor && earlier.signal === req.signal)) return 'replace';
  return 'tried';
}

/** The feedback a namespace holds under a request's idempotency key, as the store found it. */
export interface KeyedFeedback {
  skillId: string;
  /** The skill's name, null when it is gone. */
  name: string | null;
  signal: string;
  value: number | null;
}

/**
 * What a feedback given under an idempotency key does, given the feedback the namespace holds under that key: `new`
 * (none), `repeated` (the same skill, signal and value: a retried request, answered and not counted again), else a
 * rejection (the key names another feedback; nothing is written).
 */
export function feedbackKeyStanding(
  req: Pick<FeedbackRequest, 'signal' | 'value'>,
  skill: Pick<Skill, 'id' | 'name'>,
  earlier: KeyedFeedback | null,
): 'new' | 'repeated' | WriteRejection {
  if (!earlier) return 'new';
  if (earlier.skillId === skill.id && earlier.signal === req.signal && (earlier.value ?? null) === (req.value ?? null))
    return 'repeated';
  const gave = `${earlier.signal}${earlier.value === null ? '' : `=${earlier.value}`}`;
  const to = earlier.skillId === skill.id ? skill.name : (earlier.name ?? 'a skill since forgotten');
  return {
    rejected: true,
    code: 'feedback-key-reused',
    message: `this feedback id was given before, with ${gave} for ${to}; a feedback id names one feedback: send the same signal again to retry it, or a new id for another feedback (nothing was changed)`,
  };
}

/** The skill's count of judged trials after this signal, when the read gave one: its row added, a judged one taken. */
function judgedAfter(
  req: FeedbackRequest,
  before: Skill,
  taken: { actor: string | null; signal: string } | null,
): Pick<Skill, 'judgedTrials'> {
  if (before.judgedTrials === undefined) return {};
  const judged = (actor: string | null, signal: string) => (actor === JUDGE_ACTOR && isTrial(signal) ? 1 : 0);
  const added = req.withdraw ? 0 : judged(req.actor, req.signal);
  return { judgedTrials: Math.max(0, before.judgedTrials + added - (taken ? judged(taken.actor, taken.signal) : 0)) };
}

/** Whether the store must look for an earlier trial of this session before planning (`oncePerSession`). */
export function feedbackNeedsTrialCheck(req: FeedbackRequest): boolean {
  return !!(req.oncePerSession && req.sessionId);
}

/**
 * What one feedback signal writes to `before` (the row as locked or read in the transaction): the lifecycle
 * columns, a feedback row, a `skill.feedback` audit record, and events for an eta change, a status change and
 * a retirement. Null (nothing written) when this session already gave the skill a trial and the request
 * counts once per session.
 */
export function planFeedback(
  req: FeedbackRequest,
  before: Skill,
  current: {
    sessionAlreadyTried: boolean;
    recent?: RecentTrials;
    /** The session's judged trial this one replaces: the rows that count, oldest first, and its index among them. */
    replacing?: { history: readonly FeedbackRecord[]; taken: number };
  },
): FeedbackPlan | null {
  if (feedbackNeedsTrialCheck(req) && current.sessionAlreadyTried) return null;
  const replacing = current.replacing && req.replaces ? current.replacing : null;
  // Nothing to take back: a withdrawal writes nothing.
  if (req.withdraw && !replacing) return null;
  const steps = replacing ? req.replaces!.replay(before, replacing.history, replacing.taken) : null;
  const next = steps ? steps[steps.length - 1]!.after : req.compute(before, current.recent);
  // The new row follows the restated ones: its before is the last one's after (the skill's row said otherwise).
  const from = steps ? steps[steps.length - 1]!.before : before;
  const taken = replacing ? replacing.history[replacing.taken]! : null;
  const ns = req.namespace;
  const event = (type: string, payload: Record<string, unknown>): EventEntry => ({
    namespace: ns,
    at: req.at,
    type,
    skillId: before.id,
    payload,
  });
  const events: EventEntry[] = [];
  if (next.eta !== before.eta)
    events.push(event('skill.eta_changed', { name: before.name, from: before.eta, to: next.eta, signal: req.signal }));
  if (next.status !== before.status) {
    events.push(event('skill.status_changed', { name: before.name, from: before.status, to: next.status }));
    if (next.status === 'retired') events.push(event('skill.retired', { name: before.name }));
  }
  const detail = {
    signal: req.signal,
    value: req.value,
    session: req.sessionId,
    eta: [before.eta, next.eta],
    status: [before.status, next.status],
    utility: [before.utility, next.utility],
    ...(taken ? { replaces: { signal: taken.signal, actor: taken.actor, at: taken.at } } : {}),
  };
  const changed = {
    status: next.status,
    eta: next.eta,
    utility: next.utility,
    trialsAttempted: next.trialsAttempted,
    trialsPassed: next.trialsPassed,
    updatedAt: req.at,
  };
  return {
    update: {
      table: 'skills',
      set: {
        status: changed.status,
        eta: changed.eta,
        utility: changed.utility,
        trials_attempted: changed.trialsAttempted,
        trials_passed: changed.trialsPassed,
        updated_at: changed.updatedAt,
      },
      where: { id: before.id },
    },
    feedback: req.withdraw
      ? null
      : {
          namespace: ns,
          skillId: before.id,
          signal: req.signal,
          value: req.value,
          sessionId: req.sessionId,
          at: req.at,
          etaBefore: from.eta,
          etaAfter: next.eta,
          statusBefore: from.status,
          statusAfter: next.status,
          utilityBefore: from.utility,
          utilityAfter: next.utility,
          actor: req.actor,
          feedbackKey: req.feedbackKey ?? null,
        },
    after: { ...before, ...changed, ...judgedAfter(req, before, taken) },
    ...(replacing && steps
      ? {
          replaced: {
            id: taken!.id,
            restated: replacing.history.slice(replacing.taken + 1).map((row, i) => ({
              id: row.id,
              etaBefore: steps[i]!.before.eta,
              etaAfter: steps[i]!.after.eta,
              statusBefore: steps[i]!.before.status,
              statusAfter: steps[i]!.after.status,
              utilityBefore: steps[i]!.before.utility,
              utilityAfter: steps[i]!.after.utility,
            })),
          },
        }
      : {}),
    audit: [
      {
        namespace: ns,
        at: req.at,
        actor: req.actor,
        action: 'skill.feedback',
        subjectKind: 'skill',
        subjectId: before.id,
        detail,
      },
    ],
    events,
    skillsChanged: true,
  };
}

// ── enable / disable ────────────────────────────────────────────────────────

export interface EnablePlan extends Outbox {
  update: RowChange;
}

/** What enabling or disabling a skill writes: the flag, one audit record and one event. */
export function planSetEnabled(
  skill: Pick<Skill, 'id' | 'name' | 'namespace'>,
  enabled: boolean,
  actor: string,
  at: string,
): EnablePlan {
  const payload = { name: skill.name };
  const ns = skill.namespace;
  return {
    update: { table: 'skills', set: { enabled, updated_at: at }, where: { id: skill.id } },
    audit: [
      {
        namespace: ns,
        at,
        actor,
        action: enabled ? 'skill.enable' : 'skill.disable',
        subjectKind: 'skill',
        subjectId: skill.id,
        detail: payload,
      },
    ],
    events: [{ namespace: ns, at, type: enabled ? 'skill.enabled' : 'skill.disabled', skillId: skill.id, payload }],
    skillsChanged: true,
  };
}

// ── forgetting ───────────────────────────────────────────────────────────────

export interface ForgetSkillPlan extends Outbox {
  /** In order: the row, its versions, provenance, feedback, the recall items that served it, its files; then its cluster is unlinked. */
  changes: RowChange[];
}

/** What forgetting a skill deletes and appends: every row of it, one audit record and one event. */
export function planForgetSkill(
  skill: Pick<Skill, 'id' | 'name' | 'namespace' | 'version' | 'corpus'>,
  opts: ForgetOptions,
): ForgetSkillPlan {
  const detail = { name: skill.name, version: skill.version, corpus: skill.corpus };
  const ns = skill.namespace;
  const ofSkill = { skill_id: skill.id };
  return {
    changes: [
      { table: 'skills', where: { namespace: ns, id: skill.id } },
      { table: 'skill_versions', where: ofSkill },
      { table: 'provenance', where: ofSkill },
      { table: 'feedback', where: ofSkill },
      { table: 'recall_items', where: ofSkill },
      { table: 'skill_files', where: ofSkill },
      { table: 'clusters', set: { skill_id: null }, where: { namespace: ns, skill_id: skill.id } },
    ],
    audit: [
      {
        namespace: ns,
        at: opts.at,
        actor: opts.actor,
        action: 'skill.forget',
        subjectKind: 'skill',
        subjectId: skill.id,
        detail,
      },
    ],
    events: [{ namespace: ns, at: opts.at, type: 'skill.forgotten', skillId: skill.id, payload: detail }],
    skillsChanged: true,
  };
}

export interface ForgetSessionPlan extends Outbox {
  result: ForgottenSession;
}

/**
 * What forgetting a session appends, once its rows are gone: one `session.forget` audit record naming it by
 * its opaque reference only, and one `skill.parent_forgotten` event per skill that had it as a parent.
 */
export function planForgetSession(
  namespace: string,
  ref: string,
  gone: { calls: number; clusterId: string | null; parents: { skillId: string; name: string }[] },
  opts: ForgetOptions,
): ForgetSessionPlan {
  const skills = gone.parents.map((p) => p.skillId);
  return {
    result: { ref, calls: gone.calls, skills, clusterId: gone.clusterId },
    audit: [
      {
        namespace,
        at: opts.at,
        actor: opts.actor,
        action: 'session.forget',
        subjectKind: 'session',
        subjectId: ref,
        detail: { calls: gone.calls, skills },
      },
    ],
    events: gone.parents.map((p) => ({
      namespace,
      at: opts.at,
      type: 'skill.parent_forgotten',
      skillId: p.skillId,
      payload: { name: p.name },
    })),
    skillsChanged: skills.length > 0,
  };
}

/**
 * An audit record's detail once the sessions of `refs` (id to opaque reference) are forgotten, or null when it names
 * none of them: a JSON object's `session` (a feedback's), in a recall's move its `from` and `to`, and each id a
 * revise's `revokedSessions` lists hold the reference instead of the id (a value equal to the id, never one that only
 * contains it). A detail that is not a JSON object (an older row, a hand edit) cannot be read by field: each forgotten
 * id it holds whole, as written or as a JSON string spells it, becomes the reference (`wholeIdsReplaced`).
 */
export function auditDetailWithout(action: string, detail: string, refs: ReadonlyMap<string, string>): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    parsed = null;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const d = { ...(parsed as Record<string, unknown>) };
    let changed = false;
    for (const field of action === 'recall.move' ? ['session', 'from', 'to'] : ['session']) {
      const ref = typeof d[field] === 'string' ? refs.get(d[field]) : undefined;
      if (ref !== undefined) {
        d[field] = ref;
        changed = true;
      }
    }
    // A revise lists the sources it took out (explain names them).
    const listed = action === 'skill.revise' ? d.revokedSessions : undefined;
    if (Array.isArray(listed) && listed.some((id) => typeof id === 'string' && refs.has(id))) {
      d.revokedSessions = listed.map((id) => (typeof id === 'string' ? (refs.get(id) ?? id) : id));
      changed = true;
    }
    return changed ? JSON.stringify(d) : null;
  }
  const text = wholeIdsReplaced(detail, refs);
  return text === detail ? null : text;
}

// An id is made of letters, digits, `_` and `-` (`s10`, `agent-2`, `run_7`), in runs a `.` or `:` may join
// (`cc:agent-2`, `run_7.3`); a `.` or `:` that joins no further run ends a sentence or a label (`s1.`, `s1: done`).
/** Just before an occurrence: an id character, or a `.` or `:` that joins it to one (`cc:s1`, `v2.s1`). */
const ID_RUN_BEFORE = /[\p{L}\p{N}\p{M}_-][.:]?$/u;
/** Just after an occurrence: an id character, or a `.` or `:` that joins it to one (`s1.5`, `s1:retry`). */
const ID_RUN_AFTER = /^[.:]?[\p{L}\p{N}\p{M}_-]/u;

/**
 * `text` with each id of `refs` that stands whole in it (as written or as a JSON string spells it) replaced by its
 * reference. Whole: neither preceded nor followed by an id character or by a `.` or `:` that joins one, so forgetting
 * `s1` leaves `s10`, `s1x`, `s1-b`, `cc:s1` and `s1.5` (other sessions' ids) as they are, and still replaces it in
 * `session s1.`, `(s1)`, `"s1"` or `s1: done`. One pass, the longest id first where several start at one place; a
 * reference written is never read again.
 */
function wholeIdsReplaced(text: string, refs: ReadonlyMap<string, string>): string {
  const spellings: [string, string][] = [];
  for (const [id, ref] of refs) {
    // Only the spellings the text holds at all: a batch's other ids cost one search each, not one per place.
    if (id !== '' && text.includes(id)) spellings.push([id, ref]);
    const json = JSON.stringify(id).slice(1, -1);
    if (json !== id && text.includes(json)) spellings.push([json, ref]);
  }
  if (spellings.length === 0) return text;
  spellings.sort((a, b) => b[0].length - a[0].length);
  const whole = (at: number, end: number) =>
    !ID_RUN_BEFORE.test(text.slice(Math.max(0, at - 3), at)) && !ID_RUN_AFTER.test(text.slice(end, end + 3));
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const hit = spellings.find(([s]) => text.startsWith(s, i) && whole(i, i + s.length));
    if (hit) {
      out += text.slice(from, i) + hit[1];
      i += hit[0].length;
      from = i;
    } else i++;
  }
  return from === 0 ? text : out + text.slice(from);
}

// ── recalls given to their tasks ────────────────────────────────────────────

/**
 * What moving recalls to the sessions they served appends (a hook's recalls, made under its agent's session id,
 * given to the task of the transcript they served): one `recall.move` audit record per recall moved, naming it and
 * the sessions it went from and to. Nothing for a recall that did not move.
 */
export function planMoveRecalls(
  namespace: string,
  moved: readonly { recallId: number; from: string; to: string }[],
  opts: ForgetOptions,
): Outbox {
  return {
    audit: moved.map((m) => ({
      namespace,
      at: opts.at,
      actor: opts.actor,
      action: 'recall.move',
      subjectKind: 'recall',
      subjectId: String(m.recallId),
      detail: { recall: m.recallId, from: m.from, to: m.to },
    })),
    events: [],
    skillsChanged: false,
  };
}

// ── re-embedding ─────────────────────────────────────────────────────────────

/** What replacing a namespace's embeddings appends: one `skills.reembed` audit record and one event. */
export function planReembed(
  namespace: string,
  change: Pick<EmbeddingReplacement, 'embedderId' | 'actor' | 'at'>,
  counts: { skills: number; clusters: number },
): Outbox {
  const detail = { embedderId: change.embedderId, skills: counts.skills, clusters: counts.clusters };
  return {
    audit: [
      {
        namespace,
        at: change.at,
        actor: change.actor,
        action: 'skills.reembed',
        subjectKind: 'namespace',
        subjectId: namespace,
        detail,
      },
    ],
    events: [{ namespace, at: change.at, type: 'skills.reembedded', skillId: null, payload: detail }],
    skillsChanged: true,
  };
}
