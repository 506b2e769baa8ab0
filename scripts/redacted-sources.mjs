#!/usr/bin/env node
// Dev tool: how often the origin stated for a redacted argument value holds. Capture redaction writes every email
// as `[REDACTED:email]` and every phone number as `[REDACTED:phone]`, so the engine cannot match such a value to
// the result that held it; it infers the origin from where values of that kind appeared (src/domain/result-values.ts:
// the user's when no earlier result showed one, else the latest result that showed one in a single field, when no
// result was cut and the request holds none). The trace files keep the real values, so each inferred origin is
// compared with the origin the same session gives before redaction, found by the exact value. Reads dist/.
// Usage: npm run build && node scripts/redacted-sources.mjs [FILE.jsonl ...] (default: the bundled trace files)
import { protectSession, resolvePrivacy } from '../dist/capture/privacy.js';
import { loadEvalFile } from '../dist/eval/dataset.js';
import { checkRedactedOrigins } from '../dist/eval/redacted-sources.js';

const ROOT = new URL('..', import.meta.url).pathname;
const files = process.argv.slice(2);
if (files.length === 0)
  for (const f of ['tau-dev', 'tau-retail-extra', 'bfcl-multi-turn-base', 'workbench'])
    files.push(`${ROOT}test/fixtures/traces/${f}.jsonl`);

const policy = resolvePrivacy({});
console.log(
  '| file | redacted arguments | origin stated: the user (holds) | from a result (holds) | not stated | of which the real value decides |',
);
console.log('|---|---|---|---|---|---|');
for (const file of files) {
  // Each session as the engine stores it (captured results are cut at 500 characters, like the traces').
  const pairs = loadEvalFile(file, { label: 'meta.family' }).sessions.map(({ session }) => ({
    raw: session,
    stored: protectSession({ ...session, labels: null }, policy, 500),
  }));
  const c = checkRedactedOrigins(pairs);
  console.log(
    `| ${file.split('/').pop()} | ${c.args} | ${c.user} (${c.userHeld}) | ${c.result} (${c.resultHeld}) | ${c.none} | ${c.noneDecided} |`,
  );
}
console.log(
  '\nHolds: the origin found from the real value is the same. A stated origin whose real value has no known origin (it follows a cut result) counts as not holding.',
);
