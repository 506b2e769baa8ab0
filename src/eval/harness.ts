/**
 * The replay evaluation: learn from a training set on a fresh temporary memory, then recall for each
 * successful test session and score what came back against the session's task kind and tool path; plus the
 * GAIA "fourth attempt" replay and the baselines. Labels are read here for scoring only: every session
 * handed to the engine has `labels: null`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { protectSession, resolvePrivacy } from '../capture/privacy.js';
import { loadConfig, type SkillsmithConfigInput } from '../config/config.js';
import { resolveBranches } from '../domain/branches.js';
import type { Session, Skill } from '../domain/types.js';
import { openMemory } from '../app/open-memory.js';
import type { Memory } from '../app/memory.js';
import { isRecallable } from '../pipeline/recall.js';
import {
  baselineFalseRecall,
  baselineRecall,
  BASELINE_NAMES,
  mostFrequentSequence,
  oracleProcedures,
  type BaselineName,
  type FrequentSequence,
} from './baselines.js';
import type { EvalSession } from './dataset.js';
import {
  AGREE_THRESHOLD,
  essentialSequence,
  falseRecall,
  isHit,
  majorityLabel,
  ratio,
  round4,
  roundMetrics,
  scoreQueries,
  stepAgreement,
  stepsSaved,
  type QueryOutcome,
  type QuerySetMetrics,
  vMeasure,
  type VMeasure,
} from './metrics.js';
import { UNRELATED_GOALS } from './unrelated-goals.js';
import { CONFIG_ENV, mergeConfig } from '../config/sources.js';
import { EVAL_VARIANTS, type EvalVariant } from './variants.js';
import { DisabledError } from '../errors/disabled-error.js';

/** Successes of a kind that must be ingested before its next session is the "fourth attempt" probe. */
export const FOURTH_ATTEMPT_AFTER = 3;

/** Under every evaluated memory: no cooldown between distillations, and no background passes (passes run when the harness says). */
export const BASE_EVAL_CONFIG: SkillsmithConfigInput = {
  synthesis: { cooldownMs: 0, auto: { afterSessions: 0, intervalMs: 0, onFirstUse: false } },
};

export interface DatasetSummary {
  file: string;
  split: 'tune' | 'test' | 'all';
  sessions: number;
  successes: number;
  labelled: number;
  kinds: number;
  withFirstUserMessage: number;
}

export interface QuerySets {
  /** Queries with the session's goal text. */
  goal: QuerySetMetrics;
  /** Queries with `meta.first_user_message`, for the sessions that have one. */
  firstUserMessage: QuerySetMetrics;
}

export interface LearnedSkillSummary {
  name: string;
  kind: string | null;
  /** Majority kind's share of the source sessions. */
  purity: number;
  sourceSessions: number;
  steps: number;
  toolSequence: string[];
}

export interface KindRow {
  kind: string;
  trainSessions: number;
  trainSuccesses: number;
  skills: string[];
  queries: number;
  hitsTop1: number;
  hitsTopK: number;
  recalled: number;
  agreementOverHits: number | null;
  stepsSavedMeanWhenAgrees: number | null;
  /** First-user-message queries of this kind and their top-1 hits. */
  fumQueries: number;
  fumHitsTop1: number;
}

export interface FourthAttemptProbe {
  kind: string;
  /** 1-based position of the probe among the sessions of its kind, in file order. */
  position: number;
  sessionId: string;
  outcome: Session['outcome'];
  /** A recallable skill of this kind existed when the probe arrived. */
  skillOfKindExisted: boolean;
  recalled: string | null;
  recalledKind: string | null;
  similarity: number | null;
  hit: boolean;
  /** Top-1 hit when querying with the first user message instead (null: the session has none). */
  hitFirstUserMessage: boolean | null;
  /** Step agreement of the top-1 skill with the probe's essential calls (successful probes only). */
  agreement: number | null;
  /** Steps saved when the probe succeeded and the skill agrees with it; null otherwise. */
  stepsSaved: number | null;
}

export interface FourthAttemptKind {
  kind: string;
  sessions: number;
  successes: number;
  /** How many sessions of the kind had been ingested when a skill of the kind first became recallable. */
  firstSkillAfter: number | null;
  probe: FourthAttemptProbe | null;
}

export interface AttemptSummary {
  attempts: number;
  hits: number;
  hitRate: number | null;
  recalled: number;
  recallRate: number | null;
  skillOfKindExisted: number;
  /** Successful attempts (steps saved is defined on those only). */
  succeeded: number;
  agreeing: number;
  stepsSavedMeanWhenAgrees: number | null;
  /** Sum of steps saved over successful attempts (0 where nothing agrees) / successful attempts. */
  stepsSavedPerSuccess: number | null;
}

export interface FourthAttemptResult {
  /** The stream replayed: the test file, in file order, on a fresh memory. */
  stream: string;
  sessions: number;
  kinds: number;
  /** Kinds that reached FOURTH_ATTEMPT_AFTER successes and had a session after that. */
  kindsProbed: number;
  /** The fourth attempt of each kind (one probe per kind). */
  probes: AttemptSummary & {
    hitsFirstUserMessage: number;
    withFirstUserMessage: number;
    hitRateFirstUserMessage: number | null;
  };
  /** Every later session of a kind after its third success (the probe included): does memory keep helping? */
  later: AttemptSummary;
  perKind: FourthAttemptKind[];
}

export interface VariantResult {
  name: string;
  description: string;
  embedderId: string;
  config: SkillsmithConfigInput;
  learned: {
    clusters: number;
    skills: number;
    recallableSkills: number;
    /** Source-session-weighted purity of the skills (majority kind share). */
    skillPurity: number | null;
    /**
     * How learned groups line up with task kinds: `skills` over the labelled source sessions of live internal
     * skills (each session in the first skill that lists it), `clusters` over every labelled training session.
     */
    vMeasure: { skills: VMeasure; clusters: VMeasure };
    kindsWithSkill: string[];
    list: LearnedSkillSummary[];
    synthesisMs: number;
  };
  queries: QuerySets;
  falseRecall: {
    goals: number;
    recalled: number;
    rate: number | null;
    /** Wilson 95% interval of the rate: with 60 goals, one recall more or less moves the rate by 0.017. */
    interval95: [number, number] | null;
    /** Each unrelated goal that recalled something, with the top skill and its similarity. */
    examples: { goal: string; skill: string; similarity: number }[];
  };
  perKind: KindRow[];
  fourthAttempt: FourthAttemptResult | null;
  /** Per-query rows, with --details only. */
  details?: QueryDetail[];
}

export interface QueryDetail {
  sessionId: string;
  query: 'goal' | 'firstUserMessage';
  kind: string | null;
  recalled: { name: string; kind: string | null; similarity: number }[];
  hitTop1: boolean;
  agreement: number | null;
  /** The top-1 skill's steps as the session's own lookups resolve its branches, and the session's essential calls. */
  followed: string[] | null;
  essential: string[];
}

export interface BaselineResult {
  name: BaselineName;
  description: string;
  queries: QuerySets;
  falseRecall: { goals: number; recalled: number; rate: number | null; interval95: [number, number] | null };
}

export interface EvalReport {
  name: string;
  /** The command line that reproduces the report, when known. */
  command: string | null;
  label: string;
  train: DatasetSummary;
  test: DatasetSummary;
  settings: {
    topK: number;
    agreeThreshold: number;
    fourthAttemptAfter: number;
    unrelatedGoals: number;
    baseConfig: SkillsmithConfigInput;
    /** SKILLSMITH_* variables that were set (names only: values may be secrets); they override baseConfig. */
    environment: string[];
  };
  baselines: {
    mostFrequentSequence: FrequentSequence | null;
    oracleKinds: number;
    results: BaselineResult[];
  };
  variants: VariantResult[];
}

export interface EvalOptions {
  name: string;
  command?: string | null;
  label: string;
  train: { file: string; split: DatasetSummary['split']; sessions: EvalSession[] };
  test: { file: string; split: DatasetSummary['split']; sessions: EvalSession[] };
  topK?: number;
  agreeThreshold?: number;
  variants?: readonly EvalVariant[];
  unrelatedGoals?: readonly string[];
  /** Configuration under every variant (the evaluation always adds synthesis.cooldownMs 0). */
  baseConfig?: SkillsmithConfigInput;
  /** Run the fourth-attempt replay (default true). */
  replay?: boolean;
  /** Keep per-query rows in the report. */
  details?: boolean;
  onProgress?: (phase: string, done: number, total: number) => void;
}

const BASELINE_DESCRIPTIONS: Record<BaselineName, string> = {
  none: 'no memory: nothing is recalled',
  'most-frequent': 'always the most frequent essential tool sequence of the successful training sessions',
  oracle:
    'knows the task kind; recalls the consensus procedure (required steps) of that kind in the training set (upper bound)',
};

export function summarize(
  file: string,
  split: DatasetSummary['split'],
  sessions: readonly EvalSession[],
): DatasetSummary {
  return {
    file,
    split,
    sessions: sessions.length,
    successes: sessions.filter((s) => s.session.outcome === 'success').length,
    labelled: sessions.filter((s) => s.kind != null).length,
    kinds: new Set(sessions.map((s) => s.kind).filter((k) => k != null)).size,
    withFirstUserMessage: sessions.filter((s) => s.firstUserMessage != null).length,
  };
}

/** Runs the whole evaluation: baselines, then every variant (learn, recall, false recall, fourth attempt). */
export async function runEval(opts: EvalOptions): Promise<EvalReport> {
  const topK = opts.topK ?? 2;
  const agreeThreshold = opts.agreeThreshold ?? AGREE_THRESHOLD;
  const variants = opts.variants ?? EVAL_VARIANTS;
  const unrelated = opts.unrelatedGoals ?? UNRELATED_GOALS;
  const baseConfig = mergeConfig(opts.baseConfig ?? {}, BASE_EVAL_CONFIG);
  const queries = opts.test.sessions.filter((s) => s.session.outcome === 'success');

  // Baselines need no engine.
  const labelledTrain = opts.train.sessions.map((s) => ({ session: s.session, kind: s.kind }));
  // The baselines read the same consensus rules and reasoning tools as the engine's configuration.
  const synthesis = loadConfig(baseConfig, {}).synthesis;
  const frequent = mostFrequentSequence(labelledTrain, synthesis.thinkTools);
  const oracle = oracleProcedures(labelledTrain, {
    requiredSupport: synthesis.consensusSupport,
    conditionalSupport: synthesis.conditionalSupport,
    thinkTools: synthesis.thinkTools,
  });
  const baselineResults: BaselineResult[] = BASELINE_NAMES.map((name) => {
    const data = { frequent, oracle };
    const outcomes = (text: (s: EvalSession) => string | null) =>
      queries
        .filter((s) => text(s) != null)
        .map((s) => ({ ...queryBase(s), recalled: baselineRecall(name, { kind: s.kind }, data) }));
    return {
      name,
      description: BASELINE_DESCRIPTIONS[name],
      queries: {
        goal: roundMetrics(
          scoreQueries(
            outcomes((s) => s.session.goal),
            { topK, agreeThreshold },
          ),
        ),
        firstUserMessage: roundMetrics(
          scoreQueries(
            outcomes((s) => s.firstUserMessage),
            { topK, agreeThreshold },
          ),
        ),
      },
      falseRecall: roundRate(falseRecall(unrelated.map(() => baselineFalseRecall(name, data)))),
    };
  });

  const results: VariantResult[] = [];
  for (const [i, variant] of variants.entries()) {
    const tag = `${i + 1}/${variants.length} ${variant.name}`;
    const progress = (phase: string, done: number, total: number) => opts.onProgress?.(`${tag} ${phase}`, done, total);
    const result = await evaluateVariant(variant, {
      ...opts,
      topK,
      agreeThreshold,
      unrelated,
      baseConfig,
      queries,
      progress,
    });
    if (opts.replay !== false)
      result.fourthAttempt = await fourthAttemptReplay(variant, opts.test.sessions, {
        topK,
        agreeThreshold,
        baseConfig,
        stream: opts.test.file,
        progress,
      });
    results.push(result);
  }

  return {
    name: opts.name,
    command: opts.command ?? null,
    label: opts.label,
    train: summarize(opts.train.file, opts.train.split, opts.train.sessions),
    test: summarize(opts.test.file, opts.test.split, opts.test.sessions),
    settings: {
      topK,
      agreeThreshold,
      fourthAttemptAfter: FOURTH_ATTEMPT_AFTER,
      unrelatedGoals: unrelated.length,
      baseConfig,
      environment: CONFIG_ENV.filter((v) => process.env[v.name]?.trim()).map((v) => v.name),
    },
    baselines: { mostFrequentSequence: frequent, oracleKinds: oracle.size, results: baselineResults },
    variants: results,
  };
}

function queryBase(s: EvalSession): Omit<QueryOutcome, 'recalled'> {
  return { kind: s.kind, callsMade: s.session.calls.length, essential: essentialSequence(s.session.calls) };
}

function roundRate<T extends { rate: number | null }>(x: T): T {
  return { ...x, rate: round4(x.rate) };
}

/** A fresh memory on a temporary SQLite file; `dispose` closes it and removes the file. */
async function freshMemory(
  variant: EvalVariant,
  baseConfig: SkillsmithConfigInput,
): Promise<{ memory: Memory; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-eval-'));
  const config = mergeConfig(mergeConfig(baseConfig, variant.config), BASE_EVAL_CONFIG);
  const memory = await openMemory({
    db: join(dir, 'memory.db'),
    config,
    embedder: variant.embedder?.(),
    logLevel: 'silent',
  });
  if (memory.config.disabled || memory.disabled) {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
    throw new DisabledError(
      'eval: the memory is disabled (config.disabled or SKILLSMITH_DISABLED=1); unset it to evaluate',
    );
  }
  return {
    memory,
    dispose: async () => {
      await memory.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Sessions as the engine gets them: in the memory's namespace, their labels stripped, and through the capture
 * privacy of the memory's configuration, as `skillsmith ingest` and live recording store them (a token in a call's
 * arguments is redacted before it is stored, so its span is material like any other). The id is kept: scoring
 * finds the label by it.
 */
function engineView(memory: Memory): (s: EvalSession) => Session {
  const { privacy, resultChars } = memory.config.capture;
  const policy = resolvePrivacy(privacy);
  return (s) => ({
    ...protectSession({ ...s.session, namespace: memory.namespace, labels: null }, policy, resultChars),
    id: s.session.id,
  });
}

interface SkillKind {
  kind: string | null;
  purity: number;
  /** Source sessions of the majority kind, and labelled source sessions. */
  majority: number;
  labelled: number;
}

/** Majority kind of each skill's source sessions. */
function skillKinds(skills: readonly Skill[], kindOf: ReadonlyMap<string, string | null>): Map<string, SkillKind> {
  const out = new Map<string, SkillKind>();
  for (const s of skills) {
    const m = majorityLabel(s.sourceSessions.map((id) => kindOf.get(id)));
    const labelled = s.sourceSessions.filter((id) => kindOf.get(id) != null).length;
    out.set(s.id, { kind: m.label, purity: m.share, majority: m.count, labelled });
  }
  return out;
}

async function evaluateVariant(
  variant: EvalVariant,
  o: EvalOptions & {
    topK: number;
    agreeThreshold: number;
    unrelated: readonly string[];
    baseConfig: SkillsmithConfigInput;
    queries: EvalSession[];
    progress: (phase: string, done: number, total: number) => void;
  },
): Promise<VariantResult> {
  const { memory, dispose } = await freshMemory(variant, o.baseConfig);
  try {
    const ns = memory.namespace;
    o.progress('learn', 0, 1);
    await memory.ingest(o.train.sessions.map(engineView(memory)));
    const report = await memory.synthesize({ onProgress: (phase, d, t) => o.progress(phase, d, t) });
    const kindOf = new Map(o.train.sessions.map((s) => [s.session.id, s.kind]));
    const skills = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    const recallable = skills.filter((s) => isRecallable(s, memory.config.lifecycle.retireEta));
    const kinds = skillKinds(skills, kindOf);
    const kindsWithSkill = new Set(recallable.map((s) => kinds.get(s.id)!.kind).filter((k): k is string => k != null));
    const clusters = await memory.synthesis.clusters(ns);

    const details: QueryDetail[] = [];
    const run = async (
      query: 'goal' | 'firstUserMessage',
      text: (s: EvalSession) => string | null,
      done0: number,
      total: number,
    ) => {
      const outcomes: QueryOutcome[] = [];
      let done = done0;
      for (const s of o.queries) {
        const goal = text(s);
        if (goal == null) continue;
        const hits = await memory.recall(goal, { topK: o.topK });
        // A branching skill is followed as the session's own lookups decide: the branch whose condition holds.
        const recalled = hits.map((h) => ({
          kind: kinds.get(h.id)?.kind ?? null,
          toolSequence: resolveBranches(h, s.session.calls),
        }));
        const base = queryBase(s);
        outcomes.push({ ...base, recalled });
        if (o.details) {
          details.push({
            sessionId: s.session.id,
            query,
            kind: s.kind,
            recalled: hits.map((h, i) => ({ name: h.name, kind: recalled[i].kind, similarity: h.similarity })),
            hitTop1: isHit(s.kind, recalled[0]?.kind),
            agreement: recalled[0] ? round4(stepAgreement(recalled[0].toolSequence, base.essential)) : null,
            followed: recalled[0] ? [...recalled[0].toolSequence] : null,
            essential: [...base.essential],
          });
        }
        o.progress('recall', ++done, total);
      }
      return outcomes;
    };
    const withFum = o.queries.filter((s) => s.firstUserMessage != null).length;
    const total = o.queries.length + withFum;
    const goalOutcomes = await run('goal', (s) => s.session.goal, 0, total);
    const fumOutcomes = await run('firstUserMessage', (s) => s.firstUserMessage, o.queries.length, total);
    const score = (x: QueryOutcome[]) =>
      scoreQueries(x, { topK: o.topK, agreeThreshold: o.agreeThreshold, kindsWithSkill });

    const unrelatedCounts: number[] = [];
    const falseRecalls: VariantResult['falseRecall']['examples'] = [];
    for (const g of o.unrelated) {
      const served = await memory.recall(g, { topK: o.topK });
      unrelatedCounts.push(served.length);
      if (served.length)
        falseRecalls.push({ goal: g, skill: served[0].name, similarity: Math.round(served[0].similarity * 1e4) / 1e4 });
    }

    // Per kind (goal queries), for every kind of the training or test side.
    const allKinds = [
      ...new Set([...o.train.sessions, ...o.queries].map((s) => s.kind).filter((k): k is string => k != null)),
    ].sort();
    const perKind: KindRow[] = allKinds.map((kind) => {
      const m = score(goalOutcomes.filter((q) => q.kind === kind));
      const f = score(fumOutcomes.filter((q) => q.kind === kind));
      const train = o.train.sessions.filter((s) => s.kind === kind);
      return {
        kind,
        trainSessions: train.length,
        trainSuccesses: train.filter((s) => s.session.outcome === 'success').length,
        skills: recallable.filter((s) => kinds.get(s.id)!.kind === kind).map((s) => s.name),
        queries: m.queries,
        hitsTop1: m.hitsTop1,
        hitsTopK: m.hitsTopK,
        recalled: m.recalled,
        agreementOverHits: round4(m.stepAgreement.overHits),
        stepsSavedMeanWhenAgrees: round4(m.stepsSaved.meanWhenAgrees),
        fumQueries: f.queries,
        fumHitsTop1: f.hitsTop1,
      };
    });

    const skillOf = new Map<string, string>();
    for (const s of skills)
      if (!s.supersededBy) for (const id of s.sourceSessions) if (!skillOf.has(id)) skillOf.set(id, s.id);
    const labelledPairs = (groupOf: (id: string) => string | undefined) =>
      o.train.sessions.flatMap((s) => {
        const group = groupOf(s.session.id);
        return group != null && s.kind != null ? [{ group, label: s.kind }] : [];
      });
    const clusterOf = new Map<string, string>();
    for (const c of clusters) for (const id of c.members) clusterOf.set(id, c.id);
    const roundV = (v: VMeasure): VMeasure => ({
      ...v,
      homogeneity: round4(v.homogeneity)!,
      completeness: round4(v.completeness)!,
      vMeasure: round4(v.vMeasure)!,
    });
    const vm = {
      skills: roundV(vMeasure(labelledPairs((id) => skillOf.get(id)))),
      clusters: roundV(vMeasure(labelledPairs((id) => clusterOf.get(id)))),
    };

    let pure = 0;
    let sources = 0;
    const list: LearnedSkillSummary[] = skills.map((s) => {
      const k = kinds.get(s.id)!;
      pure += k.majority;
      sources += k.labelled;
      return {
        name: s.name,
        kind: k.kind,
        purity: round4(k.purity)!,
        sourceSessions: s.sourceSessions.length,
        steps: s.toolSequence.length,
        toolSequence: s.toolSequence,
      };
    });
    list.sort((a, b) => (a.kind ?? '').localeCompare(b.kind ?? '') || a.name.localeCompare(b.name));

    const result: VariantResult = {
      name: variant.name,
      description: variant.description,
      embedderId: memory.parts.embedder.id,
      config: variant.config ?? {},
      learned: {
        clusters: clusters.length,
        skills: skills.length,
        recallableSkills: recallable.length,
        skillPurity: round4(ratio(pure, sources)),
        vMeasure: vm,
        kindsWithSkill: [...kindsWithSkill].sort(),
        list,
        synthesisMs: report.stats.ms,
      },
      queries: { goal: roundMetrics(score(goalOutcomes)), firstUserMessage: roundMetrics(score(fumOutcomes)) },
      falseRecall: { ...roundRate(falseRecall(unrelatedCounts)), examples: falseRecalls },
      perKind,
      fourthAttempt: null,
    };
    if (o.details) result.details = details;
    return result;
  } finally {
    await dispose();
  }
}

/**
 * GAIA's "fourth attempt": replay a stream in file order on a fresh memory, ingesting session by session and
 * running a synthesis pass after each success. When a session arrives whose kind already has
 * FOURTH_ATTEMPT_AFTER successes ingested, recall with its goal before ingesting it. The first such session
 * of each kind is that kind's probe; every such session counts toward `later`.
 */
export async function fourthAttemptReplay(
  variant: EvalVariant,
  stream: readonly EvalSession[],
  o: {
    topK: number;
    agreeThreshold?: number;
    baseConfig?: SkillsmithConfigInput;
    stream: string;
    progress?: (phase: string, done: number, total: number) => void;
  },
): Promise<FourthAttemptResult> {
  const threshold = o.agreeThreshold ?? AGREE_THRESHOLD;
  const { memory, dispose } = await freshMemory(variant, o.baseConfig ?? {});
  try {
    const forEngine = engineView(memory);
    const kindOf = new Map<string, string | null>();
    const successes = new Map<string, number>();
    const seen = new Map<string, number>();
    const firstSkillAfter = new Map<string, number>();
    const probes = new Map<string, FourthAttemptProbe>();
    const later: FourthAttemptProbe[] = [];
    let kinds = new Map<string, SkillKind>();
    let recallableKinds = new Set<string>();

    const refresh = async () => {
      const skills = (await memory.skills.list()).filter(
        (s) => s.corpus === 'internal' && isRecallable(s, memory.config.lifecycle.retireEta),
      );
      kinds = skillKinds(skills, kindOf);
      recallableKinds = new Set([...kinds.values()].map((k) => k.kind).filter((k): k is string => k != null));
      for (const k of recallableKinds) if (!firstSkillAfter.has(k)) firstSkillAfter.set(k, seen.get(k) ?? 0);
    };

    for (const [i, s] of stream.entries()) {
      const kind = s.kind;
      if (kind != null && (successes.get(kind) ?? 0) >= FOURTH_ATTEMPT_AFTER) {
        const hits = await memory.recall(s.session.goal, { topK: o.topK });
        const top = hits[0];
        const topKind = top ? (kinds.get(top.id)?.kind ?? null) : null;
        let hitFum: boolean | null = null;
        if (s.firstUserMessage != null) {
          const [f] = await memory.recall(s.firstUserMessage, { topK: o.topK });
          hitFum = !!f && isHit(kind, kinds.get(f.id)?.kind);
        }
        const succeeded = s.session.outcome === 'success';
        const path = top ? resolveBranches(top, s.session.calls) : [];
        const agreement = top && succeeded ? stepAgreement(path, essentialSequence(s.session.calls)) : null;
        const probe: FourthAttemptProbe = {
          kind,
          position: (seen.get(kind) ?? 0) + 1,
          sessionId: s.session.id,
          outcome: s.session.outcome,
          skillOfKindExisted: recallableKinds.has(kind),
          recalled: top?.name ?? null,
          recalledKind: topKind,
          similarity: top?.similarity ?? null,
          hit: isHit(kind, topKind),
          hitFirstUserMessage: hitFum,
          agreement: round4(agreement),
          stepsSaved: agreement == null ? null : stepsSaved(s.session.calls.length, path.length, agreement, threshold),
        };
        if (!probes.has(kind)) probes.set(kind, probe);
        later.push(probe);
      }
      kindOf.set(s.session.id, kind);
      if (kind != null) seen.set(kind, (seen.get(kind) ?? 0) + 1);
      await memory.ingest([forEngine(s)]);
      if (s.session.outcome === 'success') {
        if (kind != null) successes.set(kind, (successes.get(kind) ?? 0) + 1);
        await memory.synthesize();
        await refresh();
      }
      o.progress?.('replay', i + 1, stream.length);
    }

    const allKinds = [...new Set(stream.map((s) => s.kind).filter((k): k is string => k != null))].sort();
    const perKind: FourthAttemptKind[] = allKinds.map((kind) => ({
      kind,
      sessions: seen.get(kind) ?? 0,
      successes: successes.get(kind) ?? 0,
      firstSkillAfter: firstSkillAfter.get(kind) ?? null,
      probe: probes.get(kind) ?? null,
    }));
    const probeList = [...probes.values()];
    const withFum = probeList.filter((p) => p.hitFirstUserMessage != null);
    const hitsFum = withFum.filter((p) => p.hitFirstUserMessage).length;
    return {
      stream: o.stream,
      sessions: stream.length,
      kinds: allKinds.length,
      kindsProbed: probeList.length,
      probes: {
        ...summarizeAttempts(probeList),
        hitsFirstUserMessage: hitsFum,
        withFirstUserMessage: withFum.length,
        hitRateFirstUserMessage: round4(ratio(hitsFum, withFum.length)),
      },
      later: summarizeAttempts(later),
      perKind,
    };
  } finally {
    await dispose();
  }
}

export function summarizeAttempts(list: readonly FourthAttemptProbe[]): AttemptSummary {
  const hits = list.filter((p) => p.hit).length;
  const recalled = list.filter((p) => p.recalled != null).length;
  const succeeded = list.filter((p) => p.outcome === 'success');
  const saved = succeeded.map((p) => p.stepsSaved).filter((x): x is number => x != null);
  const sum = saved.reduce((a, b) => a + b, 0);
  return {
    attempts: list.length,
    hits,
    hitRate: round4(ratio(hits, list.length)),
    recalled,
    recallRate: round4(ratio(recalled, list.length)),
    skillOfKindExisted: list.filter((p) => p.skillOfKindExisted).length,
    succeeded: succeeded.length,
    agreeing: saved.length,
    stepsSavedMeanWhenAgrees: round4(saved.length ? sum / saved.length : null),
    stepsSavedPerSuccess: round4(ratio(sum, succeeded.length)),
  };
}
