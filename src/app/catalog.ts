import { randomUUID } from 'node:crypto';
import { protectId } from '../capture/privacy.js';
import { seedEta } from '../domain/admit.js';
import { stepKeysOf } from '../domain/commands.js';
import { trialOf } from '../domain/trial.js';
import { feedbackIdProblem, feedbackKeyOf } from '../domain/feedback-key.js';
import { applySignal, isTrial, parseSignal, type LifecycleRules, type Signal } from '../domain/lifecycle.js';
import { JUDGE_ACTOR, replaceTrial } from '../domain/replace-trial.js';
import { redactText } from '../domain/redact.js';
import { parseSkillMd } from '../domain/skill-md/index.js';
import type { Fact, Outcome, Skill } from '../domain/types.js';
import type { CompileRequest, CompileResult } from '../pipeline/compile.js';
import type { SkillDiff } from '../pipeline/diff.js';
import type { Explanation } from '../pipeline/explain.js';
import type { NearestSkill, RecalledSkill } from '../pipeline/recall.js';
import type { FeedbackRecord, FeedbackRequest, RecentTrials, SkillEvent } from '../store/store.js';
import type { Changes } from './changes.js';
import type { RecallIndexes } from './recall-indexes.js';
import type { RecallOptions } from './types.js';
import type { AppContext } from './context.js';
import { agentSessionKey, checkGoal, contextPack, MAX_TEXT_CHARS, toolsOf } from './recall-only.js';
import { ConflictError, InputError, NotFoundError, PassLockedError, SessionStateError } from '../errors/index.js';
import { givenNameOf } from '../domain/learned-by.js';
import { bumpVersion } from '../domain/reconcile.js';
import { noSkillNamed, renameProblems } from '../domain/skill-rename.js';
import { renamedSkill } from '../pipeline/rename.js';
import { editedSkill, learnedDescription, revertedSkill } from '../pipeline/edit.js';
import { readEdit } from '../domain/skill-edit.js';
import { redactCapture } from '../domain/redact.js';
import { withoutHiddenText } from '../domain/untrusted-text.js';
import type { PassLock } from './synthesis.js';

/**
 * The skill catalogue: recall, the skills and facts and their history, and the changes a person or an outcome
 * makes to a skill (feedback, trials, enable/disable, promote, forget, compile).
 */
export class Catalog {
  private readonly recallLog;

  constructor(
    private readonly ctx: AppContext,
    private readonly indexes: RecallIndexes,
    private readonly changes: Changes,
    private readonly lock: PassLock,
    /** Called on every recall (the first use may start an automatic pass). */
    private readonly onUse: () => void = () => {},
  ) {
    this.recallLog = ctx.log.child('recall');
  }

  // ── recall ───────────────────────────────────────────────────────────────

  /** Goal in, at most topK skills out, best first. No match returns [] and changes nothing. */
  async recall(goal: string, opts: RecallOptions = {}): Promise<RecalledSkill[]> {
    checkGoal(goal, opts);
    if (!this.ctx.storing) return [];
    this.onUse();
    // record: false looks without leaving a trace (no recall row, last_used_at untouched): previews, searches.
    const hits = await this.indexes.of(opts.namespace).recall(goal, {
      topK: opts.topK,
      threshold: this.ctx.thresholds.recall,
      now: this.ctx.now(),
      sessionId: agentSessionKey(opts, (id) => this.ctx.sessionKey(id)),
      touch: opts.record !== false,
      tools: opts.tools,
    });
    this.recallLog.debug('recall', {
      served: hits.map((h) => h.name),
      session: opts.sessionId ?? opts.agentSession ?? null,
    });
    return hits;
  }

  /**
   * The skill a goal came nearest to, whatever the threshold, for saying why nothing was recalled; leaves no trace
   * (no recall row, last use untouched). Null when the namespace has no recallable skill.
   */
  async nearest(goal: string, opts: Pick<RecallOptions, 'namespace' | 'tools'> = {}): Promise<NearestSkill | null> {
    checkGoal(goal, { tools: opts.tools });
    if (!this.ctx.storing) return null;
    return this.indexes
      .of(opts.namespace)
      .nearest(goal, { threshold: this.ctx.thresholds.recall, now: this.ctx.now(), tools: opts.tools });
  }

  /** The prompt block for recalled skills (When / Do / Branches / Done within the budget; never raw YAML). */
  formatContext(skills: RecalledSkill[]): string {
    return contextPack(skills, this.ctx.config.recall.maxBodyChars);
  }

  /** Union of the recalled skills' tools, for callers that load tools per turn. */
  toolsFor(skills: RecalledSkill[]): string[] {
    return toolsOf(skills);
  }

  // ── reading ──────────────────────────────────────────────────────────────

  async listSkills(
    opts: { namespace?: string; corpus?: 'internal' | 'external'; includeSuperseded?: boolean } = {},
  ): Promise<Skill[]> {
    return this.ctx
      .requireStore()
      .listSkills(this.ctx.ns(opts.namespace), { corpus: opts.corpus, includeSuperseded: opts.includeSuperseded });
  }

  async getSkill(idOrName: string, namespace?: string): Promise<Skill | null> {
    return this.ctx.requireStore().getSkill(this.ctx.ns(namespace), idOrName);
  }

  /** What changed in a skill's SKILL.md between two of its versions (pipeline/diff.ts). */
  async diff(
    idOrName: string,
    opts: { from?: string; to?: string; namespace?: string } = {},
  ): Promise<SkillDiff | null> {
    const { diffSkill } = await import('../pipeline/diff.js');
    return diffSkill(this.ctx.requireStore(), this.ctx.ns(opts.namespace), idOrName, opts);
  }

  /** Why a skill exists: parents, facts, versions, supersede chain, trials, eta and utility over time. */
  async explain(idOrName: string, namespace?: string, opts: { sessions?: number } = {}): Promise<Explanation | null> {
    const { explainSkill } = await import('../pipeline/explain.js');
    return explainSkill(this.ctx.requireStore(), this.ctx.ns(namespace), idOrName, {
      ...opts,
      lifecycle: this.ctx.config.lifecycle,
      // What recall serves for a request, without a trace (no recall row, last use untouched).
      servedFor: async (goal) => {
        const [hit] = await this.indexes
          .of(namespace)
          .recall(goal, { topK: 1, threshold: this.ctx.thresholds.recall, now: this.ctx.now(), touch: false });
        return hit?.name ?? null;
      },
    });
  }

  async events(opts: { namespace?: string; afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    return this.ctx.requireStore().events(this.ctx.ns(opts.namespace), opts);
  }

  /** The id of the namespace's newest event (0 when there is none, or nothing is stored). */
  async lastEventId(namespace?: string): Promise<number> {
    return (await this.ctx.store?.lastEventId(this.ctx.ns(namespace))) ?? 0;
  }

  // ── facts ────────────────────────────────────────────────────────────────

  /** Records a fact (semantic memory) that can be a parent of a compiled skill. */
  async addFact(
    text: string,
    opts: { id?: string; source?: string; namespace?: string } = {},
  ): Promise<{ id: string }> {
    if (typeof text !== 'string' || !text.trim()) throw new InputError('addFact: text must be a non-empty string');
    if (text.length > MAX_TEXT_CHARS)
      throw new InputError(`addFact: text is ${text.length} characters, over the ${MAX_TEXT_CHARS} limit`);
    const id = opts.id ?? `f_${randomUUID()}`;
    const privacy = this.ctx.config.capture.privacy;
    await this.ctx.requireStore().addFact({
      id,
      namespace: this.ctx.ns(opts.namespace),
      text: redactText(text),
      source: protectId(privacy, opts.source ?? null, 'source'),
      createdAt: this.ctx.now().toISOString(),
    });
    return { id };
  }

  async listFacts(namespace?: string): Promise<Fact[]> {
    return this.ctx.requireStore().listFacts(this.ctx.ns(namespace));
  }

  // ── changes to skills ────────────────────────────────────────────────────

  /**
   * Applies one feedback signal (pass | fail | up | down | reward=<0..1>) to a skill. `feedbackId`: the caller's
   * idempotency key: the same feedback sent again under it (a retry after a timeout) changes nothing and is
   * answered `repeated: true`; another signal, value or skill under it is a ConflictError.
   */
  async feedback(
    idOrName: string,
    signal: Signal | string,
    opts: FeedbackOptions = {},
  ): Promise<{ before: Skill; after: Skill; repeated: boolean }> {
    const store = this.ctx.requireStore();
    const sig = typeof signal === 'string' ? parseSignal(signal) : signal;
    const ns = this.ctx.ns(opts.namespace);
    const badId = opts.feedbackId === undefined ? null : feedbackIdProblem(opts.feedbackId);
    if (badId) throw new InputError(`feedback: feedbackId ${badId}`);
    const feedbackKey = opts.feedbackId === undefined ? null : feedbackKeyOf(opts.feedbackId);
    // A trial names the session it comes from: one of this memory's, and a session gives a skill one trial (as a
    // reported outcome does), so a retried request does not count twice and a session's trial is not overturned.
    const trial = isTrial(sig.kind);
    if (opts.sessionId) {
      const key = this.ctx.sessionKey(opts.sessionId);
      if (!(await store.getSession(ns, key)))
        throw new NotFoundError(
          `no session with this id in namespace ${ns}: feedback names a session recorded in this memory, or none`,
        );
      opts = { ...opts, sessionId: key };
    }
    const res = await store.applyFeedback({
      namespace: ns,
      idOrName,
      signal: sig.kind,
      value: sig.kind === 'reward' ? sig.value : null,
      sessionId: opts.sessionId ?? null,
      actor: opts.actor ?? 'user',
      at: this.ctx.now().toISOString(),
      compute: (s, recent) => lifecycleStep(s, sig, this.ctx.config.lifecycle, recent),
      recentTrials: this.ctx.config.lifecycle.trialWindow,
      oncePerSession: trial,
      // A person's trial of the session replaces the one the judge gave it.
      ...(trial ? { replaces: judgedTrialReplaced(sig, this.ctx.config.lifecycle) } : {}),
      feedbackKey,
    });
    if (!res) {
      const skill = trial && opts.sessionId ? await store.getSkill(ns, idOrName) : null;
      if (skill) return this.triedBefore(skill, sig.kind, opts.sessionId!);
      throw new NotFoundError(noSkillNamed(idOrName, await this.nowKnownAs(idOrName, opts.namespace)));
    }
    if (res.repeated) {
      this.ctx.log.child('lifecycle').info('feedback repeated: not counted again', { skill: res.after.name });
      return { before: res.before, after: res.after, repeated: true };
    }
    this.ctx.log
      .child('lifecycle')
      .info('feedback', { skill: res.after.name, signal: sig.kind, eta: res.after.eta, status: res.after.status });
    await this.changes.skills(opts.namespace);
    return { before: res.before, after: res.after, repeated: false };
  }

  /**
   * A trial of `skill` from a session that already gave it one: the same result again changes nothing (a retried
   * request); the other result is refused, naming the trial it would overturn.
   */
  private async triedBefore(skill: Skill, signal: string, sessionId: string) {
    const store = this.ctx.requireStore();
    const earlier = (await store.feedbackHistory(skill.id)).find(
      (f) => f.sessionId === sessionId && isTrial(f.signal) && f.replacedBy === null,
    );
    if (earlier && earlier.signal !== signal)
      throw new SessionStateError(
        `session ${sessionId} already gave ${skill.name} its trial (${earlier.signal === 'trial.pass' ? 'pass' : 'fail'}, ${earlier.at}); a session gives a skill one trial`,
      );
    return { before: skill, after: skill, repeated: true };
  }

  /**
   * A reported outcome of a session is one trial of each skill recalled for it that the session followed (trialOf:
   * a skill it went past gets none, and one whose step failed under it is failed); the names credited.
   * `actor` JUDGE_ACTOR: the outcome the judge gave a complete task (lifecycle.judgedTrials). A judged trial gives
   * way to the task's reported one, and to a newer judgement of the task (it grew); a reported trial is final. A
   * judgement of `unknown` (the task grew into one the judge cannot read) takes the judged trial back, with nothing
   * in its place: the skill's record follows the task's latest judgement. A reported `unknown` changes nothing.
   */
  async creditRecalledSkills(
    sessionId: string,
    outcome: Outcome,
    namespace: string,
    actor: 'outcome' | typeof JUDGE_ACTOR = 'outcome',
  ): Promise<string[]> {
    if (outcome === 'unknown' && actor !== JUDGE_ACTOR) return [];
    const store = this.ctx.requireStore();
    const served = await store.skillsServedForSession(namespace, sessionId);
    if (served.length === 0) return [];
    const calls = (await store.getSession(namespace, sessionId))?.calls ?? [];
    const credited: string[] = [];
    let withdrawn = 0;
    for (const skillId of served) {
      // A skill the session did not follow (it went another way) gets no trial from its outcome.
      const skill = await store.getSkill(namespace, skillId);
      if (!skill) continue;
      const procedure = { steps: stepKeysOf(skill.toolSequence, skill.body), tools: skill.toolsRequired };
      const trial =
        outcome === 'unknown' ? null : trialOf(procedure, calls, outcome, this.ctx.config.synthesis.thinkTools);
      const sig: Signal | null = trial && { kind: trial === 'pass' ? 'trial.pass' : 'trial.fail' };
      const res = await store.applyFeedback({
        namespace,
        idOrName: skillId,
        // No trial (the session went another way, or the judge now reads it as unknown): a judged trial of it, read
        // from the same calls with the other outcome or from the task before it grew, is taken back, with nothing in
        // its place.
        signal: sig?.kind ?? 'trial.withdrawn',
        value: null,
        sessionId,
        actor,
        at: this.ctx.now().toISOString(),
        compute: (s, recent) => (sig ? lifecycleStep(s, sig, this.ctx.config.lifecycle, recent) : s),
        recentTrials: this.ctx.config.lifecycle.trialWindow,
        oncePerSession: true,
        replaces: judgedTrialReplaced(sig, this.ctx.config.lifecycle),
        ...(sig ? {} : { withdraw: true }),
      });
      if (res && sig) credited.push(res.after.name);
      else if (res) withdrawn++;
    }
    if (credited.length || withdrawn) await this.changes.skills(namespace);
    return credited;
  }

  /**
   * What became of a skill once named `name`, for a lookup by that name that found nothing: the live skill that
   * has it among its former names (`renamed`: skills rename keeps them, `renamed-from`), or the live skill at the
   * end of the supersede chain of a skill that had it (`superseded`). Null when no skill had it, or one has it now.
   */
  async nowKnownAs(name: string, namespace?: string): Promise<{ name: string; how: 'renamed' | 'superseded' } | null> {
    const all = await this.ctx.requireStore().listSkills(this.ctx.ns(namespace), { includeSuperseded: true });
    const live = all.filter((s) => !s.supersededBy);
    if (live.some((s) => s.name === name)) return null;
    // The newest skill that had the name (as its name, or as a name before a rename), then along its supersede
    // chain to the skill that is live now (a chain never loops).
    const had = all
      .filter((s) => s.name === name || (s.corpus === 'internal' && givenNameOf(s.skillMd)?.formerNames.includes(name)))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
    const byId = new Map(all.map((s) => [s.id, s]));
    let at: Skill | undefined = had;
    for (let hops = 0; at?.supersededBy && hops < all.length; hops++) at = byId.get(at.supersededBy);
    if (!had || !at || at.supersededBy) return null;
    return { name: at.name, how: at.id === had.id ? 'renamed' : 'superseded' };
  }

  async setEnabled(
    idOrName: string,
    enabled: boolean,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<Skill | null> {
    const s = await this.ctx
      .requireStore()
      .setSkillEnabled(this.ctx.ns(opts.namespace), idOrName, enabled, opts.actor ?? 'user');
    await this.changes.skills(opts.namespace);
    return s;
  }

  /**
   * A person promotes an imported skill into the internal corpus: from then on it can be recalled. A retired skill
   * is brought back: probationary, at least at the eta its evidence gave it, judged by its trials from then on. A
   * name no live skill has is a NotFoundError; the name of a skill already internal and not retired (learned here,
   * or promoted before) is a ConflictError that says so, since the skill exists and is recalled already.
   */
  async promote(name: string, opts: { namespace?: string; actor?: string } = {}): Promise<Skill> {
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    const ext = (await store.listSkills(ns, { corpus: 'external' })).find((s) => s.name === name || s.id === name);
    const internal = await store.listSkills(ns, { corpus: 'internal' });
    if (!ext) {
      const already = internal.find((s) => s.name === name || s.id === name);
      // A learned skill its trials retired (a tool that was down for a day, a person who knows better): a person
      // brings it back, on probation at the eta its evidence gave it, and its trials from then on judge it.
      if (already?.status === 'retired') return this.revive(already, ns, opts.actor ?? 'user');
      if (already)
        throw new ConflictError(
          `promote: ${already.name} is not an imported skill: it is in the internal corpus (learned here, or promoted before) and can be recalled already`,
        );
      throw new NotFoundError(`promote: no imported skill named ${name} in namespace ${ns}`);
    }
    const clash = internal.find((s) => s.name === ext.name);
    if (clash)
      throw new ConflictError(
        `promote: an internal skill named ${ext.name} already exists (${clash.id}); rename or disable one first`,
      );
    // An import stored before its row's description was the recallable copy's kept the file's own words (a
    // secret, a planted instruction): the description recall and list_skills serve is its SKILL.md's.
    const description = parseSkillMd(ext.skillMd).description ?? ext.description;
    const embedded =
      description === ext.description
        ? { embedding: ext.embedding, embedderId: ext.embedderId }
        : { embedding: (await this.ctx.embedder.embed([description]))[0], embedderId: this.ctx.embedder.id };
    const at = this.ctx.now().toISOString();
    const saved = await store.writeSkill({
      action: 'promote',
      skill: { ...ext, description, ...embedded, corpus: 'internal', updatedAt: at },
      parents: [],
      actor: opts.actor ?? 'user',
      detail: {},
      at,
    });
    await this.changes.skills(opts.namespace);
    return saved;
  }

  /** Brings a retired skill back to probation (a `user.promote` signal, in its track record like any other). */
  private async revive(skill: Skill, ns: string, actor: string): Promise<Skill> {
    const sig: Signal = { kind: 'user.promote' };
    const res = await this.ctx.requireStore().applyFeedback({
      namespace: ns,
      idOrName: skill.id,
      signal: sig.kind,
      value: null,
      sessionId: null,
      actor,
      at: this.ctx.now().toISOString(),
      compute: (s, recent) => lifecycleStep(s, sig, this.ctx.config.lifecycle, recent),
      recentTrials: this.ctx.config.lifecycle.trialWindow,
    });
    if (!res) throw new NotFoundError(`promote: no skill named ${skill.name} in namespace ${ns}`);
    this.ctx.log
      .child('lifecycle')
      .info('retired skill promoted', { skill: res.after.name, eta: res.after.eta, status: res.after.status });
    await this.changes.skills(ns);
    return res.after;
  }

  /**
   * Gives a learned skill another name: a new minor version whose title and description lead say it, and whose
   * SKILL.md says who named it (`named-by`), so that the passes that write the skill again keep the name. Its track
   * record, sources and lineage stay; `skills diff` shows the change. Refused with a clear error for a name that is
   * not a valid agentskills name or that another live skill of the namespace has, for an imported skill (its
   * folder names it), and while a synthesis pass runs on the namespace (PassLockedError), which could write the old
   * name back. Null when there is no such live skill.
   */
  async rename(
    idOrName: string,
    newName: string,
    opts: { namespace?: string; actor?: string; force?: boolean } = {},
  ): Promise<{ from: string; skill: Skill; changed: boolean } | null> {
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    const actor = opts.actor ?? 'user';
    const release = await this.lock.acquireForChange(ns, 'rename');
    if (!release)
      throw new PassLockedError(
        `a synthesis pass is running on namespace ${ns} (or another change held it for 5 s); rename the skill when it is done`,
      );
    let saved: Skill;
    let from: string;
    try {
      const skill = await store.getSkill(ns, idOrName);
      if (!skill || skill.supersededBy) {
        // A rename asked again (a retry after a lost answer) finds it done: the same answer, nothing written.
        const now = await this.nowKnownAs(idOrName, ns);
        const done = now?.how === 'renamed' && now.name === newName ? await store.getSkill(ns, newName) : null;
        return done ? { from: idOrName, skill: done, changed: false } : null;
      }
      from = skill.name;
      if (newName === from) return { from, skill, changed: false };
      const problems = renameProblems(newName);
      if (problems.length) throw new InputError(`rename ${from} to "${newName}": ${problems.join('; ')}`);
      if (skill.corpus === 'external')
        throw new ConflictError(
          `rename ${from}: an imported skill keeps the name its folder gives it; promote it first, or import the folder under another name`,
        );
      const live = await store.listSkills(ns);
      const clash = live.find((s) => s.name === newName && s.id !== skill.id);
      if (clash)
        throw new ConflictError(
          `rename ${from}: another live skill is named ${newName} (${clash.id}); rename or forget that one first`,
        );
      // A name another skill had until a person renamed it: whoever still uses it would reach this one instead.
      const known = live.find((s) => s.id !== skill.id && givenNameOf(s.skillMd)?.formerNames.includes(newName));
      if (known && !opts.force)
        throw new ConflictError(
          `rename ${from}: ${newName} was the name of ${known.name} until it was renamed, and a lookup by it says so; taking it would send whoever still uses it to ${from} (force to take it anyway)`,
        );
      const version = bumpVersion(skill.version, 'minor');
      const named = renamedSkill({ ...skill, version }, newName, actor, this.ctx.config.license);
      if (!named)
        throw new ConflictError(
          `rename ${from}: its text was not written by a pass (imported), so nothing here can say the new name`,
        );
      const at = this.ctx.now().toISOString();
      saved = await store.writeSkill({
        action: 'rename',
        skill: { ...named, updatedAt: at },
        parents: [],
        actor,
        detail: { from, to: newName },
        at,
      });
    } finally {
      await release();
    }
    await this.changes.skills(opts.namespace);
    this.ctx.log.child('rename').info('skill renamed', { from, to: saved.name });
    return { from, skill: saved, changed: true };
  }

  /**
   * A person's SKILL.md for a learned skill (skill-edit.ts: readEdit): a new minor version of the same skill (same
   * id, record and lineage) with their description and body, secrets and personal data redacted, its procedure
   * the one its steps name; its SKILL.md says who edited it and when, and the passes that write the skill again
   * keep the text (they restate its counts, and say when its sessions suggest another procedure). An empty text,
   * or one with the description and body the skill has, changes nothing (`changed: false`, `why`). A text that is
   * not a valid SKILL.md, or names another skill, is an InputError; an imported skill (its folder is its text), a
   * ConflictError; a pass running on the namespace, a PassLockedError. Null when there is no such live skill.
   */
  async edit(
    idOrName: string,
    text: string,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<EditResult | null> {
    if (typeof text !== 'string') throw new InputError('edit: the SKILL.md text must be a string');
    if (text.length > MAX_TEXT_CHARS)
      throw new InputError(`edit: the SKILL.md is ${text.length} characters, over the ${MAX_TEXT_CHARS} limit`);
    return this.changeText(idOrName, opts, async (skill, at) => {
      const store = this.ctx.requireStore();
      // The learner's description, left as it was, says the edited procedure's step count; a person's is theirs.
      const learned = await learnedDescription(skill, () => store.skillVersions(skill.id));
      const reading = readEdit(text, skill, (t) => withoutHiddenText(redactCapture(t)), { learned });
      if (!reading.ok) throw new InputError(`edit ${skill.name}: ${reading.errors.join('; ')}`);
      if (!reading.changed) return { skill, changed: false, why: reading.why, warnings: [], redacted: [] };
      const edited = editedSkill(skill, reading.fields, {
        editedBy: opts.actor ?? 'user',
        at,
        license: this.ctx.config.license,
      });
      if (!edited) throw notLearned(skill, 'edit');
      const { warnings, redacted } = reading.fields;
      const saved = await store.writeSkill({
        action: 'edit',
        skill: edited,
        parents: [],
        actor: opts.actor ?? 'user',
        detail: {
          toolSequence: { from: skill.toolSequence, to: edited.toolSequence },
          ...(redacted.length ? { redacted } : {}),
        },
        at,
      });
      return { skill: saved, changed: true, warnings, redacted };
    });
  }

  /**
   * Hands a skill a person edited back to the learner: a new minor version with the text its last learned version
   * had (under the name and counts it has now), no longer marked as a person's, so the next pass may write it
   * again. A skill nobody edited changes nothing (`changed: false`, `why: 'not-edited'`). Null when there is no such
   * live skill.
   */
  async revertEdit(idOrName: string, opts: { namespace?: string; actor?: string } = {}): Promise<EditResult | null> {
    return this.changeText(idOrName, opts, async (skill, at) => {
      const store = this.ctx.requireStore();
      const reverted = revertedSkill(skill, await store.skillVersions(skill.id), {
        at,
        license: this.ctx.config.license,
      });
      if (!reverted) return { skill, changed: false, why: 'not-edited', warnings: [], redacted: [] };
      const saved = await store.writeSkill({
        action: 'revert',
        skill: reverted,
        parents: [],
        actor: opts.actor ?? 'user',
        detail: { toolSequence: { from: skill.toolSequence, to: reverted.toolSequence } },
        at,
      });
      return { skill: saved, changed: true, warnings: [], redacted: [] };
    });
  }

  /** A change to a live learned skill's text under the namespace's lock (a pass could write the old text back). */
  private async changeText(
    idOrName: string,
    opts: { namespace?: string },
    change: (skill: Skill, at: string) => Promise<EditResult>,
  ): Promise<EditResult | null> {
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    const release = await this.lock.acquireForChange(ns, 'edit');
    if (!release)
      throw new PassLockedError(
        `a synthesis pass is running on namespace ${ns} (or another change held it for 5 s); edit the skill when it is done`,
      );
    let res: EditResult;
    try {
      const skill = await store.getSkill(ns, idOrName);
      if (!skill || skill.supersededBy) return null;
      if (skill.corpus === 'external') throw notLearned(skill, 'edit');
      res = await change(skill, this.ctx.now().toISOString());
    } finally {
      await release();
    }
    if (res.changed) {
      await this.changes.skills(opts.namespace);
      this.ctx.log.child('edit').info(res.skill.skillMd.includes('edited-by:') ? 'skill edited' : 'skill handed back', {
        skill: res.skill.name,
        version: res.skill.version,
      });
    }
    return res;
  }

  /**
   * Forgets a skill: its row, SKILL.md versions, provenance, track record, vectors and exemplars are deleted and
   * it is never recalled again; an audit record keeps its id and name. Null when there is no such skill.
   */
  async forgetSkill(
    idOrName: string,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<{ id: string; name: string } | null> {
    const store = this.ctx.requireStore();
    const res = await store.forgetSkill(this.ctx.ns(opts.namespace), idOrName, {
      actor: opts.actor ?? 'user',
      at: this.ctx.now().toISOString(),
    });
    if (!res) return null;
    await this.changes.skills(opts.namespace);
    this.ctx.log.child('forget').info('skill forgotten', res);
    return res;
  }

  /** Explicit compile from session ids, a cue or facts: a dry run unless `commit`. Same pathway as the pass. */
  async compile(req: Omit<CompileRequest, 'namespace'> & { namespace?: string }): Promise<CompileResult> {
    this.ctx.requireStore();
    const { compile } = await import('../pipeline/compile.js');
    const result = await compile(await this.ctx.pipelineDeps(), {
      ...req,
      sessions: req.sessions?.map((id) => this.ctx.sessionKey(id)),
      namespace: this.ctx.ns(req.namespace),
    });
    if (req.commit) await this.changes.skills(req.namespace);
    return result;
  }
}

/** How a feedback is given (`Catalog.feedback`). */
export interface FeedbackOptions {
  /** The session the skill was used in: a trial counts once for it. */
  sessionId?: string;
  /**
   * An idempotency key of the caller's choosing (1 to 200 characters), stored as its SHA-256: a retry under it is
   * answered as a repeat, never counted twice.
   */
  feedbackId?: string;
  namespace?: string;
  actor?: string;
}

/** What `skills edit` did: the skill as it is now, and what the person should know. */
export interface EditResult {
  skill: Skill;
  /** False when nothing was written (`why`). */
  changed: boolean;
  why?: 'empty' | 'unchanged' | 'not-edited';
  /** What the person should know: a procedure the steps did not say, a tool no version of the skill called. */
  warnings: string[];
  /** The kinds of secret or personal data redacted from the text. */
  redacted: string[];
}

/** An imported skill's text is its folder's: an edit is an import of the edited folder. */
function notLearned(skill: Skill, what: string): ConflictError {
  return new ConflictError(
    `${what} ${skill.name}: an imported skill's text is its folder's; edit the folder's SKILL.md and import it again (skills import DIR --force)`,
  );
}

/** One lifecycle step of a stored skill: trials update the Beta prior its evidence gave it (seedEta). */
function lifecycleStep(s: Skill, sig: Signal, rules: LifecycleRules, recent?: RecentTrials) {
  const {
    prior: _prior,
    recent: _recent,
    ...next
  } = applySignal({ ...s, prior: seedEta(s.successCount, s.attemptCount), recent }, sig, rules);
  return next;
}

/**
 * A trial that takes the place of the session's judged one: the skill's lifecycle told again without it, this
 * trial last (domain/replace-trial.ts; none when `sig` is null), on the prior its evidence gives it.
 */
function judgedTrialReplaced(sig: Signal | null, rules: LifecycleRules): NonNullable<FeedbackRequest['replaces']> {
  return {
    actors: [JUDGE_ACTOR],
    replay: (s: Skill, history: readonly FeedbackRecord[], taken: number) =>
      replaceTrial(history, taken, sig, { ...s, prior: seedEta(s.successCount, s.attemptCount) }, rules),
  };
}
