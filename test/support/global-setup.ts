// Runs once before the suite: the CLI, MCP, dashboard, fleet and crash-safety tests launch the built CLI in
// dist/, so dist/ is rebuilt whenever anything it is built from changed since the last build
// (scripts/build-if-stale.mjs, which `prepare` runs too). Otherwise those tests would pass or fail on a stale
// build.
import { spawnSync } from 'node:child_process';

const ROOT = new URL('../..', import.meta.url).pathname;

export default function buildDist(): void {
  const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) {
    throw new Error(
      `building dist/ failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}): fix the errors above; the tests that launch dist/ would otherwise run a stale build`,
    );
  }
}
