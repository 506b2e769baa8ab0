#!/usr/bin/env node
// GAIA's headline on the current defaults, over test/fixtures/headline/scenarios.json: for each scenario, three
// differently worded successful runs in a fresh memory, one pass, then the further wordings ("fourth") must
// recall the learned skill first (the first of them is the seed's "fourth request"), and unrelated requests must
// recall nothing. Also all scenarios of a set in one memory (a fourth must never recall another scenario's
// skill). Reads dist/ (npm run build).
//   node scripts/headline-report.mjs [--set tune|test|both]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UNRELATED_GOALS } from '../dist/eval/unrelated-goals.js';
import { openMemory } from '../dist/index.js';

const ROOT = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { set: { type: 'string', default: 'both' } } });
const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/headline/scenarios.json'), 'utf8'));
const sets = values.set === 'both' ? ['tune', 'test'] : [values.set];

function sessionsOf(s, prefix) {
  return s.goals.map((goal, i) => ({
    id: `${prefix}-${i}`,
    namespace: 'default',
    goal,
    outcome: 'success',
    reward: 1,
    agentId: null,
    source: 'headline',
    startedAt: `2026-01-0${i + 1}T00:00:00.000Z`,
    endedAt: null,
    labels: null,
    calls: s.tools.map((t, position) => ({ position, ...t, ok: true, error: null, durationMs: null, at: null })),
  }));
}

async function withMemory(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-headline-'));
  const memory = await openMemory({
    db: join(dir, 'm.db'),
    config: {
      synthesis: { cooldownMs: 0 },
      ...(process.env.RECALL_T ? { thresholds: { recall: Number(process.env.RECALL_T) } } : {}),
    },
    logLevel: 'silent',
    auditFile: null,
  });
  try {
    return await fn(memory);
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const slug = (s) => s.name.replace(/\W+/g, '-');
for (const set of sets) {
  const { scenarios } = fixture[set];
  const unrelated = Array.isArray(fixture[set].unrelated) ? fixture[set].unrelated : UNRELATED_GOALS.slice(0, 20);
  console.log(`\n${set}: ${scenarios.length} scenarios, ${unrelated.length} unrelated requests`);
  let learned = 0;
  let fourthHits = 0;
  let fourths = 0;
  // The issue's shape: one fourth request per scenario (the first further wording).
  let firstHits = 0;
  let falseRecalls = 0;
  let unrelatedAsked = 0;
  for (const s of scenarios) {
    await withMemory(async (memory) => {
      await memory.ingest(sessionsOf(s, slug(s)));
      await memory.synthesize();
      const skills = (await memory.skills.list()).filter((k) => k.corpus === 'internal');
      const one = skills.length === 1;
      if (one) learned++;
      const rows = [];
      for (const f of s.fourth) {
        fourths++;
        const top = (await memory.recall(f, { record: false }))[0];
        const hit = one && top?.id === skills[0].id;
        if (hit) fourthHits++;
        if (hit && f === s.fourth[0]) firstHits++;
        rows.push(
          `    ${hit ? 'hit ' : 'MISS'} ${top ? `${top.name} ${top.similarity.toFixed(3)}` : 'nothing'}  <- ${f}`,
        );
      }
      let fr = 0;
      for (const g of unrelated) {
        unrelatedAsked++;
        const hits = await memory.recall(g, { record: false });
        if (hits.length) {
          fr++;
          rows.push(`    FALSE ${hits[0].name} ${hits[0].similarity.toFixed(3)} <- ${g}`);
        }
      }
      falseRecalls += fr;
      console.log(`  ${s.domain}/${s.name}: ${skills.length} skill(s) ${skills.map((k) => k.name).join(', ')}`);
      for (const r of rows) console.log(r);
    });
  }
  const together = await withMemory(async (memory) => {
    await memory.ingest(scenarios.flatMap((s) => sessionsOf(s, slug(s))));
    await memory.synthesize();
    const skills = (await memory.skills.list()).filter((k) => k.corpus === 'internal');
    let wrong = 0;
    let hits = 0;
    let first = 0;
    const misses = [];
    for (const s of scenarios) {
      const own = skills.find(
        (k) =>
          k.toolSequence.join() === [...new Set(s.tools.map((t) => t.tool))].join() ||
          k.sourceSessions.every((id) => id.startsWith(slug(s))),
      );
      for (const f of s.fourth) {
        const top = (await memory.recall(f, { record: false }))[0];
        if (top && own && top.id === own.id) {
          hits++;
          if (f === s.fourth[0]) first++;
        } else {
          if (top) wrong++;
          misses.push(
            `    ${top ? 'OTHER' : 'MISS '} ${top ? `${top.name} ${top.similarity.toFixed(3)}` : 'nothing'}  <- ${f} (${s.domain}/${s.name}: ${own?.name ?? 'no skill'})`,
          );
        }
      }
    }
    let fr = 0;
    for (const g of unrelated) if ((await memory.recall(g, { record: false })).length) fr++;
    return { skills: skills.length, hits, first, wrong, fr, misses };
  });
  console.log(
    `${set}: skills learned ${learned}/${scenarios.length}; further wordings recalled first ${fourthHits}/${fourths} ` +
      `(the fourth request, the first of them: ${firstHits}/${scenarios.length}); ` +
      `false recalls ${falseRecalls}/${unrelatedAsked} (per-scenario memories)`,
  );
  console.log(
    `${set}, one memory: ${together.skills} skills; further wordings recalled first ${together.hits}/${fourths} ` +
      `(the fourth request: ${together.first}/${scenarios.length}), ` +
      `another scenario's skill first ${together.wrong}; false recalls ${together.fr}/${unrelated.length}`,
  );
  for (const m of together.misses) console.log(m);
}
