#!/usr/bin/env node
// Dev tool: how often the origin stated for a redacted argument value holds. Capture redaction writes every email
// as `[REDACTED:email]` and every phone number as `[REDACTED:phone]`, so the engine cannot match such a value to
// the result that held it; it infers the origin from where values of that kind appeared (src/domain/result-values.ts:
// the user's when no earlier result showed one, else the latest result that showed one in a single field, when no
// result was cut and the request holds none). The trace files keep the real values, so each inferred origin is
// compared with the origin the same session gives before redaction, found by the exact value. Reads dist/.
// Usage: npm run build && node scripts/redacted-sources.mjs [FILE.jsonl ...] (default: the bundled trace files)
import { protectSession, resolvePrivacy } from '../dist/capture/privacy.js';
import { isMarker } from '../dist/domain/redact.js';
import { argumentOrigins, sourceKey } from '../dist/domain/result-values.js';
import { loadEvalFile } from '../dist/eval/dataset.js';

const ROOT = new URL('..', import.meta.url).pathname;
const files = process.argv.slice(2);
if (files.length === 0)
  for (const f of ['tau-dev', 'tau-retail-extra', 'bfcl-multi-turn-base', 'workbench'])
    files.push(`${ROOT}test/fixtures/traces/${f}.jsonl`);

const policy = resolvePrivacy({});
const request = (s) => [s.goal, s.cue].filter(Boolean).join('\n');
console.log(
  '| file | redacted arguments | origin stated: the user (holds) | from a result (holds) | not stated | of which the real value decides |',
);
console.log('|---|---|---|---|---|---|');
for (const file of files) {
  const row = { args: 0, user: 0, userHeld: 0, result: 0, resultHeld: 0, none: 0, noneDecided: 0 };
  for (const { session } of loadEvalFile(file, { label: 'meta.family' }).sessions) {
    // As the engine stores it (captured results are cut at 500 characters like the traces).
    const stored = protectSession({ ...session, labels: null }, policy, 500);
    const raw = session.calls.filter((c) => c.ok);
    const red = stored.calls.filter((c) => c.ok);
    const before = argumentOrigins(raw, request(session));
    const after = argumentOrigins(red, request(stored));
    red.forEach((call, i) => {
      for (const [arg, value] of Object.entries(call.args ?? {})) {
        if (typeof value !== 'string' || !isMarker(value)) continue;
        row.args++;
        const stated = after.get(call.position)?.get(arg);
        const real = before.get(raw[i].position)?.get(arg);
        const held = !!stated && !!real && sourceKey(stated) === sourceKey(real);
        if (!stated) {
          row.none++;
          if (real) row.noneDecided++;
        } else if (stated === 'user') {
          row.user++;
          if (held) row.userHeld++;
        } else {
          row.result++;
          if (held) row.resultHeld++;
        }
      }
    });
  }
  const name = file.split('/').pop();
  console.log(
    `| ${name} | ${row.args} | ${row.user} (${row.userHeld}) | ${row.result} (${row.resultHeld}) | ${row.none} | ${row.noneDecided} |`,
  );
}
console.log(
  '\nHolds: the origin found from the real value is the same. A stated origin whose real value has no known origin (it follows a cut result) counts as not holding.',
);
