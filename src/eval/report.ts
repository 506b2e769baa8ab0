/** Renders an evaluation report as plain-text tables (stdout) or Markdown (the committed report). */
import { basename } from 'node:path';
import type { BaselineResult, EvalReport, VariantResult } from './harness.js';
import type { QuerySetMetrics } from './metrics.js';

type Style = 'text' | 'md';

export function renderTable(head: string[], rows: string[][], style: Style): string {
  // Columns of figures ("0.271", "-3.5", "2/11", "-") are right-aligned, text columns left-aligned.
  const numeric = head.map((_, i) => i > 0 && rows.every((r) => /^(-|-?\d+(\.\d+)?%?|\d+\/\d+)$/.test(r[i] ?? '-')));
  if (style === 'md') {
    const esc = (c: string) => c.replace(/\|/g, '\\|');
    return [
      `| ${head.map(esc).join(' | ')} |`,
      `|${head.map((_, i) => (numeric[i] ? '---:' : '---')).join('|')}|`,
      ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
    ].join('\n');
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

/** Fixed decimals without a negative zero ("-0.0" reads as a loss). */
const fixed = (x: number | null | undefined, digits: number) =>
  x == null ? '-' : x.toFixed(digits).replace(/^-(0\.?0*)$/, '$1');
const r3 = (x: number | null | undefined) => fixed(x, 3);
const r1 = (x: number | null | undefined) => fixed(x, 1);
const frac = (n: number, d: number) => `${n}/${d}`;

const QUERY_HEAD = [
  'system',
  'queries',
  'recalled',
  'hit@1',
  'hit@k',
  'prec@1',
  'agree|hit',
  'agree|rec',
  'agree/query',
  'agreeing',
  'saved|agree',
  'saved/query',
  'cover@1',
  'cover@k',
  'false recall',
  'skills',
];

type FalseRecall = BaselineResult['falseRecall'];

/** `0.067 (4/60, 95% 0.026-0.159)`: the rate, its counts and where the true rate may lie. */
function falseRecallCell(f: FalseRecall): string {
  if (f.rate == null) return r3(f.rate);
  const interval = f.interval95 ? `, 95% ${r3(f.interval95[0])}-${r3(f.interval95[1])}` : '';
  return `${r3(f.rate)} (${f.recalled}/${f.goals}${interval})`;
}

function queryRow(name: string, m: QuerySetMetrics, falseRecall: FalseRecall, skills: string): string[] {
  return [
    name,
    String(m.queries),
    r3(m.recallRate),
    r3(m.hitRateTop1),
    r3(m.hitRateTopK),
    r3(m.precisionTop1),
    r3(m.stepAgreement.overHits),
    r3(m.stepAgreement.overRecalled),
    r3(m.stepAgreement.perQuery),
    r3(m.stepsSaved.agreeRate),
    r1(m.stepsSaved.meanWhenAgrees),
    r1(m.stepsSaved.perQuery),
    r3(m.coverage.top1),
    r3(m.coverage.topK),
    falseRecallCell(falseRecall),
    skills,
  ];
}

export function headlineTable(report: EvalReport, set: 'goal' | 'firstUserMessage', style: Style): string {
  const rows: string[][] = [];
  for (const b of report.baselines.results)
    rows.push(queryRow(`baseline: ${b.name}`, b.queries[set], b.falseRecall, '-'));
  for (const v of report.variants)
    rows.push(queryRow(v.name, v.queries[set], v.falseRecall, String(v.learned.recallableSkills)));
  return renderTable(QUERY_HEAD, rows, style);
}

function missesTable(report: EvalReport, style: Style): string {
  const rows = report.variants.flatMap((v) =>
    (['goal', 'firstUserMessage'] as const).map((set) => {
      const m = v.queries[set];
      const x = m.misses!;
      return [
        `${v.name} (${set === 'goal' ? 'goal' : 'first msg'})`,
        String(m.queries),
        String(m.hitsTop1),
        String(x.noSkillForKind),
        String(x.noSkillForKindRecalledOther),
        String(x.nothingRecalled),
        String(x.wrongKind),
        String(x.unlabelled),
      ];
    }),
  );
  return renderTable(
    [
      'system (query)',
      'queries',
      'top-1 hits',
      'no skill for kind',
      '...but recalled another',
      'skill exists, nothing recalled',
      'skill exists, other kind first',
      'unlabelled',
    ],
    rows,
    style,
  );
}

function fourthTable(report: EvalReport, style: Style): string {
  const rows = report.variants
    .filter((v) => v.fourthAttempt)
    .map((v) => {
      const f = v.fourthAttempt!;
      return [
        v.name,
        frac(f.kindsProbed, f.kinds),
        frac(f.probes.hits, f.probes.attempts),
        r3(f.probes.hitRate),
        frac(f.probes.skillOfKindExisted, f.probes.attempts),
        frac(f.probes.hitsFirstUserMessage, f.probes.withFirstUserMessage),
        r1(f.probes.stepsSavedMeanWhenAgrees),
        r1(f.probes.stepsSavedPerSuccess),
        frac(f.later.hits, f.later.attempts),
        r3(f.later.hitRate),
        r1(f.later.stepsSavedPerSuccess),
      ];
    });
  return renderTable(
    [
      'system',
      'kinds probed',
      '4th hits',
      '4th hit rate',
      'skill existed',
      'hits (first msg)',
      'saved|agree',
      'saved/success',
      'later hits',
      'later hit rate',
      'later saved/success',
    ],
    rows,
    style,
  );
}

function fourthPerKind(v: VariantResult, style: Style): string {
  const rows = v.fourthAttempt!.perKind.map((k) => [
    k.kind,
    String(k.sessions),
    String(k.successes),
    k.firstSkillAfter == null ? '-' : String(k.firstSkillAfter),
    k.probe ? String(k.probe.position) : '-',
    k.probe ? k.probe.outcome : '-',
    k.probe ? (k.probe.skillOfKindExisted ? 'yes' : 'no') : '-',
    k.probe ? (k.probe.recalled ?? '(nothing)') : '-',
    k.probe ? (k.probe.hit ? 'HIT' : 'miss') : '-',
    k.probe ? r3(k.probe.agreement) : '-',
    k.probe && k.probe.stepsSaved != null ? String(k.probe.stepsSaved) : '-',
  ]);
  return renderTable(
    [
      'kind',
      'sessions',
      'successes',
      'skill after',
      'probe #',
      'outcome',
      'skill existed',
      'recalled',
      'hit',
      'agreement',
      'saved',
    ],
    rows,
    style,
  );
}

function perKindTable(v: VariantResult, style: Style): string {
  const rows = v.perKind.map((k) => [
    k.kind,
    frac(k.trainSuccesses, k.trainSessions),
    k.skills.length ? k.skills.join(', ') : '-',
    String(k.queries),
    String(k.hitsTop1),
    String(k.hitsTopK),
    String(k.recalled),
    r3(k.agreementOverHits),
    r1(k.stepsSavedMeanWhenAgrees),
    frac(k.fumHitsTop1, k.fumQueries),
  ]);
  return renderTable(
    [
      'kind',
      'train ok/all',
      'skills',
      'queries',
      'hit@1',
      'hit@k',
      'recalled',
      'agree|hit',
      'saved|agree',
      'first msg hit@1',
    ],
    rows,
    style,
  );
}

function skillsTable(v: VariantResult, style: Style): string {
  const rows = v.learned.list.map((s) => [
    s.name,
    s.kind ?? '-',
    r3(s.purity),
    String(s.sourceSessions),
    String(s.steps),
    s.toolSequence.join(' > '),
  ]);
  return renderTable(['skill', 'kind (majority)', 'purity', 'sources', 'steps', 'tool sequence'], rows, style);
}

function learnedTable(report: EvalReport, style: Style): string {
  const rows = report.variants.map((v) => [
    v.name,
    v.embedderId,
    String(v.learned.clusters),
    String(v.learned.skills),
    r3(v.learned.skillPurity),
    vm(v.learned.vMeasure?.skills),
    vm(v.learned.vMeasure?.clusters),
    v.learned.kindsWithSkill.length ? v.learned.kindsWithSkill.join(', ') : '-',
  ]);
  return renderTable(
    [
      'system',
      'embedder',
      'clusters',
      'skills',
      'skill purity',
      'skills V (h / c)',
      'clusters V (h / c)',
      'kinds with a skill',
    ],
    rows,
    style,
  );
}

/** V-measure with its homogeneity and completeness, e.g. "0.921 (0.933 / 0.910)". */
function vm(v: { vMeasure: number; homogeneity: number; completeness: number } | undefined): string {
  return v ? `${r3(v.vMeasure)} (${r3(v.homogeneity)} / ${r3(v.completeness)})` : '-';
}

function datasetLine(label: string, d: EvalReport['train']): string {
  return `${label}: ${basename(d.file)}${d.split === 'all' ? '' : ` (${d.split} split)`}: ${d.sessions} sessions, ${d.successes} successful, ${d.kinds} task kinds, ${d.withFirstUserMessage} with a first user message`;
}

/** The stdout view: headline tables, misses, fourth attempt. */
export function formatEvalText(report: EvalReport): string {
  const out: string[] = [];
  out.push(
    `Replay evaluation "${report.name}" (label ${report.label}, top-k ${report.settings.topK}, agrees = step agreement >= ${report.settings.agreeThreshold})`,
  );
  out.push(datasetLine('train', report.train));
  out.push(datasetLine('test ', report.test));
  const f = report.baselines.mostFrequentSequence;
  if (f) out.push(`most frequent training sequence (${f.count} sessions, kind ${f.kind}): ${f.sequence.join(' > ')}`);
  out.push('');
  out.push('Queries with the goal text (successful test sessions):');
  out.push(headlineTable(report, 'goal', 'text'));
  out.push('');
  out.push('Queries with the first user message:');
  out.push(headlineTable(report, 'firstUserMessage', 'text'));
  out.push('');
  out.push('Why top-1 missed:');
  out.push(missesTable(report, 'text'));
  if (report.variants.some((v) => v.fourthAttempt)) {
    out.push('');
    out.push(
      `Fourth attempt (replay of the test file in order; probe = the next session of a kind after ${report.settings.fourthAttemptAfter} successes):`,
    );
    out.push(fourthTable(report, 'text'));
  }
  out.push('');
  out.push('What each system learned from the training set:');
  out.push(learnedTable(report, 'text'));
  const def = report.variants[0];
  if (def) {
    out.push('');
    out.push(`Per task kind (${def.name}, goal queries):`);
    out.push(perKindTable(def, 'text'));
  }
  out.push('');
  out.push(
    'Columns: hit@1/hit@k = share of queries whose first / any recalled skill was learned from the same task kind; prec@1 = hits among',
  );
  out.push(
    'recalls; agree|hit, agree|rec = mean LCS F1 of the top-1 skill with the session path over hits / over all recalls; agreeing = share',
  );
  out.push(
    'of queries whose top-1 skill agrees; saved|agree = mean calls made minus steps prescribed when it agrees; saved/query = the same',
  );
  out.push(
    'summed over all queries / queries; cover = share of test kinds with at least one hit; false recall = share of unrelated goals',
  );
  out.push('that recall anything.');
  return out.join('\n');
}

const pct = (x: number | null | undefined) => (x == null ? '-' : `${(100 * x).toFixed(1)}%`);

/** A few sentences read off the numbers (no judgement that the numbers do not carry). */
export function summaryLines(report: EvalReport): string[] {
  const def = report.variants[0];
  if (!def) return [];
  const base = (n: string) => report.baselines.results.find((b) => b.name === n)?.queries.goal;
  const g = def.queries.goal;
  const f = def.queries.firstUserMessage;
  const none = base('none');
  const freq = base('most-frequent');
  const oracle = base('oracle');
  const lines: string[] = [];
  lines.push(
    `With the goal text, **${def.name}** recalls a skill of the right kind first for ${g.hitsTop1} of ${g.queries} successful test sessions (hit@1 ${pct(g.hitRateTop1)}, hit@${report.settings.topK} ${pct(g.hitRateTopK)}); no memory ${pct(none?.hitRateTop1)}, most frequent sequence ${pct(freq?.hitRateTop1)}, oracle ${pct(oracle?.hitRateTop1)}.`,
  );
  lines.push(
    `Something is recalled for ${pct(g.recallRate)} of the queries and it is of the right kind ${pct(g.precisionTop1)} of the time; the top skill agrees with the session's path for ${pct(g.stepsSaved.agreeRate)} of the queries and then saves ${r1(g.stepsSaved.meanWhenAgrees)} calls on average (${r1(g.stepsSaved.perQuery)} per query; oracle ${r1(oracle?.stepsSaved.perQuery)} per query; sessions make ${r1(g.callsMean)} calls on average).`,
  );
  if (g.misses) {
    lines.push(
      `Of the ${g.queries - g.hitsTop1} top-1 misses, ${g.misses.noSkillForKind} are sessions of a kind nothing was learned for (${g.misses.noSkillForKindRecalledOther} of them recalled another kind's skill instead), ${g.misses.nothingRecalled} recalled nothing although a skill of their kind exists, and ${g.misses.wrongKind} ranked another kind's skill first.`,
    );
  }
  lines.push(
    `With the first user message instead of the goal: hit@1 ${pct(f.hitRateTop1)} (${f.hitsTop1}/${f.queries}), recalled ${pct(f.recallRate)}.`,
  );
  lines.push(
    `False recall on ${def.falseRecall.goals} unrelated goals: ${pct(def.falseRecall.rate)}${
      def.falseRecall.examples.length
        ? ` (${def.falseRecall.examples.map((x) => `"${x.goal}" -> ${x.skill} at ${x.similarity.toFixed(3)}`).join('; ')})`
        : ''
    }.`,
  );
  const best = (key: (v: (typeof report.variants)[number]) => number | null) =>
    [...report.variants].sort(
      (a, b) => (key(b) ?? -Infinity) - (key(a) ?? -Infinity) || a.name.localeCompare(b.name),
    )[0];
  const byHit = best((v) => v.queries.goal.hitRateTop1);
  const bySaved = best((v) => v.queries.goal.stepsSaved.perQuery);
  const byFum = best((v) => v.queries.firstUserMessage.hitRateTop1);
  lines.push(
    `Across the compared systems, the best goal hit@1 is **${byHit.name}** (${pct(byHit.queries.goal.hitRateTop1)}), the most steps saved per query **${bySaved.name}** (${r1(bySaved.queries.goal.stepsSaved.perQuery)}), the best first-message hit@1 **${byFum.name}** (${pct(byFum.queries.firstUserMessage.hitRateTop1)}).`,
  );
  const fa = def.fourthAttempt;
  if (fa) {
    lines.push(
      `Fourth attempt (${def.name}): ${fa.probes.hits} of ${fa.kindsProbed} probed kinds recall a skill of their kind; a skill of the kind existed at the probe for ${fa.probes.skillOfKindExisted}; over all later sessions of those kinds the hit rate is ${pct(fa.later.hitRate)} (${fa.later.hits}/${fa.later.attempts}).`,
    );
  }
  return lines;
}

/** The committed Markdown report. */
export function formatEvalMarkdown(report: EvalReport): string {
  const out: string[] = [];
  const def = report.variants[0];
  out.push(`# Skillsmith replay evaluation: ${report.name}`);
  out.push('');
  out.push(
    `Generated by \`skillsmith eval\` (src/eval/). Labels (\`${report.label}\`) are read by the harness for scoring only; every session handed to the engine has its labels stripped.`,
  );
  out.push('');
  if (report.command) out.push(`Reproduce: \`npm run build && npx ${report.command}\``, '');
  out.push(`- ${datasetLine('train', report.train)}`);
  out.push(`- ${datasetLine('test', report.test)}`);
  out.push(
    `- top-k ${report.settings.topK}; a skill *agrees* with a session when their step agreement (LCS F1) is at least ${report.settings.agreeThreshold}; ${report.settings.unrelatedGoals} unrelated goals for false recall; every memory is a fresh temporary SQLite file on the embedded defaults plus \`${JSON.stringify(report.settings.baseConfig)}\` and each system's overrides${report.settings.environment?.length ? `, under the environment variables ${report.settings.environment.join(', ')}` : ''}.`,
  );
  const f = report.baselines.mostFrequentSequence;
  if (f)
    out.push(
      `- most frequent training sequence (${f.count} successful sessions, majority kind \`${f.kind}\`, share ${r3(f.kindShare)}): \`${f.sequence.join(' > ')}\``,
    );
  out.push(`- oracle: consensus procedures for ${report.baselines.oracleKinds} task kinds of the training set.`);
  out.push('');
  out.push('## Summary');
  out.push('');
  for (const l of summaryLines(report)) out.push(`- ${l}`);
  out.push('');
  out.push('## Headline: queries with the goal text');
  out.push('');
  out.push(headlineTable(report, 'goal', 'md'));
  out.push('');
  out.push('## Queries with the first user message (what the agent sees first)');
  out.push('');
  out.push(headlineTable(report, 'firstUserMessage', 'md'));
  out.push('');
  out.push('## Why top-1 missed');
  out.push('');
  out.push(missesTable(report, 'md'));
  if (report.variants.some((v) => v.fourthAttempt)) {
    out.push('');
    out.push('## Fourth attempt (GAIA)');
    out.push('');
    out.push(
      `The test file replayed in file order on a fresh memory: each session is ingested in turn and a synthesis pass runs after each success. When a session arrives whose task kind already has ${report.settings.fourthAttemptAfter} successes ingested, its goal is recalled *before* it is ingested. The first such session of a kind is that kind's probe (whatever its outcome); "later" counts every such session. Steps saved are counted on successful attempts only.`,
    );
    out.push('');
    out.push(fourthTable(report, 'md'));
    if (def?.fourthAttempt) {
      out.push('');
      out.push(`### Per kind (${def.name})`);
      out.push('');
      out.push(fourthPerKind(def, 'md'));
    }
  }
  out.push('');
  out.push('## What each system learned');
  out.push('');
  for (const v of report.variants) out.push(`- **${v.name}**: ${v.description}`);
  out.push('');
  out.push(learnedTable(report, 'md'));
  if (def) {
    out.push('');
    out.push(`### Per task kind (${def.name}, goal queries)`);
    out.push('');
    out.push(perKindTable(def, 'md'));
    out.push('');
    out.push(`### Skills learned (${def.name})`);
    out.push('');
    out.push(skillsTable(def, 'md'));
  }
  out.push('');
  out.push('## Definitions');
  out.push('');
  out.push(
    '- **queries**: the successful sessions of the test set, queried once with the goal text and once with `meta.first_user_message` (when present).',
  );
  out.push(
    '- **V (h / c)**: V-measure of the grouping against the task kinds, with its homogeneity (each group holds one kind) and completeness (each kind sits in one group); *skills* over the source sessions of the learned skills, *clusters* over every labelled training session.',
  );
  out.push(
    "- **step agreement per query**: the LCS F1 of the top-1 recalled procedure with each successful test session, a query that recalled nothing counting 0 (the JSON report's `stepAgreement.perQuery`).",
  );
  out.push(
    "- **kind of a skill**: the majority label of its source sessions (more of them than of any other kind; a skill learned evenly from two kinds has no kind and never counts as a hit). **hit@1**: the first recalled skill is of the session's kind; **hit@k**: any of the top-k is. Rates are over all queries; **prec@1** = hits / queries that recalled anything.",
  );
  out.push(
    "- **step agreement**: F1 of the longest common subsequence between the top-1 skill's `toolSequence` and the session's essential calls (successful, non-`think` calls, immediate repeats collapsed); averaged over top-1 hits (`agree|hit`) and over every query that recalled something (`agree|rec`).",
  );
  out.push(
    `- **steps saved**: calls the session made (every call: failed, repeated and \`think\` calls included) minus the steps the skill prescribes (length of its \`toolSequence\`, conditional steps included), counted only when the skill *agrees* (step agreement >= ${report.settings.agreeThreshold}); \`saved|agree\` is the mean over agreeing queries, \`saved/query\` spreads the same sum over all queries (0 where nothing agrees). Signed: a skill longer than the session's path counts negative.`,
  );
  out.push(
    '- **coverage**: share of the test task kinds (among queries) with at least one hit. **false recall**: share of goals from outside the training domains for which anything is recalled.',
  );
  out.push(
    "- **baselines**: *none* recalls nothing; *most-frequent* always recalls the most frequent essential sequence of the successful training sessions (a hit when its majority kind is the session's; it \"recalls\" for unrelated goals too); *oracle* knows the kind and recalls the consensus procedure of that kind's successful training sessions: the required steps (in at least half of them) of the engine's own aligner, with no admission bar (leaving out the conditional steps gives the oracle its best agreement and steps saved).",
  );
  out.push(
    "- **why top-1 missed**: *no skill for kind* = nothing of that kind was learned (a learning miss), of which *but recalled another* = memory recalled another kind's skill instead of staying silent; *skill exists, nothing recalled* = a skill of the kind exists but no skill passed the recall threshold; *skill exists, other kind first* = another kind's skill was ranked first.",
  );
  out.push('');
  return out.join('\n');
}
