/**
 * Internal consistency of an evaluation report: every rate within [0,1], every count within its parent
 * (hits <= recalled <= queries, ...), every rate equal to its counts. Returns the violations (empty when
 * the report is sound); the tests and the CLI both use it.
 */
import type { AttemptSummary, EvalReport } from './harness.js';
import type { QuerySetMetrics } from './metrics.js';

const EPS = 1e-3;

export function checkReport(report: EvalReport): string[] {
  const problems: string[] = [];
  const fail = (where: string, what: string) => problems.push(`${where}: ${what}`);
  const unit = (where: string, x: number | null | undefined) => {
    if (x == null) return;
    if (!Number.isFinite(x) || x < 0 || x > 1) fail(where, `${x} is not within [0,1]`);
  };
  const le = (where: string, a: number, b: number, an: string, bn: string) => {
    if (!(a <= b)) fail(where, `${an} (${a}) > ${bn} (${b})`);
  };
  const isRate = (where: string, r: number | null, n: number, d: number) => {
    unit(where, r);
    if (d === 0 ? r !== null : r === null || Math.abs(r - n / d) > EPS)
      fail(where, `rate ${r} does not equal ${n}/${d}`);
  };

  const query = (where: string, m: QuerySetMetrics) => {
    le(where, m.labelled, m.queries, 'labelled', 'queries');
    le(where, m.hitsTop1, m.hitsTopK, 'hitsTop1', 'hitsTopK');
    le(where, m.hitsTopK, m.recalled, 'hitsTopK', 'recalled');
    le(where, m.recalled, m.queries, 'recalled', 'queries');
    le(where, m.hitsTopK, m.labelled, 'hitsTopK', 'labelled');
    le(where, m.stepsSaved.agreeing, m.recalled, 'stepsSaved.agreeing', 'recalled');
    isRate(`${where}.recallRate`, m.recallRate, m.recalled, m.queries);
    isRate(`${where}.hitRateTop1`, m.hitRateTop1, m.hitsTop1, m.queries);
    isRate(`${where}.hitRateTopK`, m.hitRateTopK, m.hitsTopK, m.queries);
    isRate(`${where}.precisionTop1`, m.precisionTop1, m.hitsTop1, m.recalled);
    isRate(`${where}.stepsSaved.agreeRate`, m.stepsSaved.agreeRate, m.stepsSaved.agreeing, m.queries);
    unit(`${where}.stepAgreement.overHits`, m.stepAgreement.overHits);
    unit(`${where}.stepAgreement.overRecalled`, m.stepAgreement.overRecalled);
    if ((m.hitsTop1 === 0) !== (m.stepAgreement.overHits === null))
      fail(where, 'stepAgreement.overHits must be null exactly when there are no top-1 hits');
    if ((m.recalled === 0) !== (m.stepAgreement.overRecalled === null))
      fail(where, 'stepAgreement.overRecalled must be null exactly when nothing was recalled');
    if ((m.stepsSaved.agreeing === 0) !== (m.stepsSaved.meanWhenAgrees === null))
      fail(where, 'stepsSaved.meanWhenAgrees must be null exactly when nothing agrees');
    if (m.stepsSaved.meanWhenAgrees != null && m.stepsSaved.perQuery != null) {
      const expected = (m.stepsSaved.meanWhenAgrees * m.stepsSaved.agreeing) / m.queries;
      if (Math.abs(expected - m.stepsSaved.perQuery) > 0.01 + EPS * Math.abs(expected))
        fail(where, `stepsSaved.perQuery ${m.stepsSaved.perQuery} != mean x agreeing / queries (${expected})`);
    }
    const c = m.coverage;
    le(`${where}.coverage`, c.kindsHitTop1, c.kindsHitTopK, 'kindsHitTop1', 'kindsHitTopK');
    le(`${where}.coverage`, c.kindsHitTopK, c.kinds, 'kindsHitTopK', 'kinds');
    le(`${where}.coverage`, c.kindsHitTop1, m.hitsTop1, 'kindsHitTop1', 'hitsTop1');
    isRate(`${where}.coverage.top1`, c.top1, c.kindsHitTop1, c.kinds);
    isRate(`${where}.coverage.topK`, c.topK, c.kindsHitTopK, c.kinds);
    if (m.misses) {
      const sum = m.misses.unlabelled + m.misses.noSkillForKind + m.misses.nothingRecalled + m.misses.wrongKind;
      if (sum !== m.queries - m.hitsTop1)
        fail(`${where}.misses`, `parts sum to ${sum}, not queries - hitsTop1 = ${m.queries - m.hitsTop1}`);
      if (m.misses.nothingRecalled > m.queries - m.recalled)
        fail(`${where}.misses`, 'more "nothing recalled" misses than queries without recall');
      le(
        `${where}.misses`,
        m.misses.noSkillForKindRecalledOther,
        m.misses.noSkillForKind,
        'noSkillForKindRecalledOther',
        'noSkillForKind',
      );
      if (m.misses.wrongKind + m.misses.noSkillForKindRecalledOther > m.recalled - m.hitsTop1)
        fail(`${where}.misses`, 'more wrong recalls than recalls that missed');
    }
  };

  const attempts = (where: string, a: AttemptSummary) => {
    le(where, a.hits, a.recalled, 'hits', 'recalled');
    le(where, a.recalled, a.attempts, 'recalled', 'attempts');
    le(where, a.hits, a.skillOfKindExisted, 'hits', 'skillOfKindExisted');
    le(where, a.skillOfKindExisted, a.attempts, 'skillOfKindExisted', 'attempts');
    le(where, a.agreeing, a.succeeded, 'agreeing', 'succeeded');
    le(where, a.succeeded, a.attempts, 'succeeded', 'attempts');
    isRate(`${where}.hitRate`, a.hitRate, a.hits, a.attempts);
    isRate(`${where}.recallRate`, a.recallRate, a.recalled, a.attempts);
  };

  for (const side of ['train', 'test'] as const) {
    const d = report[side];
    le(side, d.successes, d.sessions, 'successes', 'sessions');
    le(side, d.labelled, d.sessions, 'labelled', 'sessions');
    le(side, d.withFirstUserMessage, d.sessions, 'withFirstUserMessage', 'sessions');
  }
  unit('settings.agreeThreshold', report.settings.agreeThreshold);

  const all = [
    ...report.baselines.results.map((b) => ({
      where: `baseline ${b.name}`,
      queries: b.queries,
      falseRecall: b.falseRecall,
    })),
    ...report.variants.map((v) => ({ where: `variant ${v.name}`, queries: v.queries, falseRecall: v.falseRecall })),
  ];
  for (const r of all) {
    query(`${r.where} goal`, r.queries.goal);
    query(`${r.where} firstUserMessage`, r.queries.firstUserMessage);
    if (r.queries.goal.queries !== report.test.successes)
      fail(`${r.where} goal`, `queries ${r.queries.goal.queries} != successful test sessions ${report.test.successes}`);
    le(
      `${r.where} firstUserMessage`,
      r.queries.firstUserMessage.queries,
      r.queries.goal.queries,
      'queries',
      'goal queries',
    );
    le(`${r.where} falseRecall`, r.falseRecall.recalled, r.falseRecall.goals, 'recalled', 'goals');
    isRate(`${r.where} falseRecall.rate`, r.falseRecall.rate, r.falseRecall.recalled, r.falseRecall.goals);
    const band = r.falseRecall.interval95;
    const rate = r.falseRecall.rate;
    if (rate != null && (!band || band[0] > rate || band[1] < rate))
      fail(`${r.where} falseRecall.interval95`, `${JSON.stringify(band)} does not hold the rate ${rate}`);
  }

  const none = report.baselines.results.find((b) => b.name === 'none');
  if (none) {
    for (const q of [none.queries.goal, none.queries.firstUserMessage]) {
      if (q.recalled !== 0 || q.hitsTopK !== 0 || (q.queries > 0 && q.stepsSaved.perQuery !== 0))
        fail('baseline none', 'must recall nothing, hit nothing and save nothing');
    }
  }

  for (const v of report.variants) {
    const where = `variant ${v.name}`;
    le(`${where} learned`, v.learned.recallableSkills, v.learned.skills, 'recallableSkills', 'skills');
    unit(`${where} learned.skillPurity`, v.learned.skillPurity);
    for (const s of v.learned.list) unit(`${where} skill ${s.name} purity`, s.purity);
    let queries = 0;
    for (const k of v.perKind) {
      le(`${where} kind ${k.kind}`, k.hitsTop1, k.hitsTopK, 'hitsTop1', 'hitsTopK');
      le(`${where} kind ${k.kind}`, k.hitsTopK, k.recalled, 'hitsTopK', 'recalled');
      le(`${where} kind ${k.kind}`, k.recalled, k.queries, 'recalled', 'queries');
      le(`${where} kind ${k.kind}`, k.fumHitsTop1, k.fumQueries, 'fumHitsTop1', 'fumQueries');
      le(`${where} kind ${k.kind}`, k.trainSuccesses, k.trainSessions, 'trainSuccesses', 'trainSessions');
      unit(`${where} kind ${k.kind} agreementOverHits`, k.agreementOverHits);
      queries += k.queries;
    }
    if (queries !== v.queries.goal.labelled)
      fail(where, `per-kind queries sum to ${queries}, not the ${v.queries.goal.labelled} labelled goal queries`);
    const fa = v.fourthAttempt;
    if (fa) {
      attempts(`${where} fourthAttempt.probes`, fa.probes);
      attempts(`${where} fourthAttempt.later`, fa.later);
      if (fa.probes.attempts !== fa.kindsProbed)
        fail(`${where} fourthAttempt`, `probes ${fa.probes.attempts} != kindsProbed ${fa.kindsProbed}`);
      le(`${where} fourthAttempt`, fa.kindsProbed, fa.kinds, 'kindsProbed', 'kinds');
      le(`${where} fourthAttempt`, fa.probes.attempts, fa.later.attempts, 'probes', 'later attempts');
      le(
        `${where} fourthAttempt`,
        fa.probes.hitsFirstUserMessage,
        fa.probes.withFirstUserMessage,
        'hitsFirstUserMessage',
        'withFirstUserMessage',
      );
      isRate(
        `${where} fourthAttempt.probes.hitRateFirstUserMessage`,
        fa.probes.hitRateFirstUserMessage,
        fa.probes.hitsFirstUserMessage,
        fa.probes.withFirstUserMessage,
      );
      for (const k of fa.perKind) {
        if (k.probe && k.successes < report.settings.fourthAttemptAfter)
          fail(`${where} fourthAttempt kind ${k.kind}`, 'probed before enough successes');
        if (k.probe) unit(`${where} fourthAttempt kind ${k.kind} agreement`, k.probe.agreement);
        if (k.probe?.hit && !k.probe.skillOfKindExisted)
          fail(`${where} fourthAttempt kind ${k.kind}`, 'hit without a skill of the kind');
      }
    }
  }
  return problems;
}
