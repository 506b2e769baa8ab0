// Runs once before the suite: the CLI, MCP, dashboard, fleet and crash-safety tests launch the built CLI in
// dist/, so dist/ is rebuilt whenever anything it is built from changed since the last build
// (scripts/build-if-stale.mjs, which `prepare` runs too). Otherwise those tests would pass or fail on a stale
// build.
//
// The run's temporary files (memories, exported skills, PostgreSQL clusters, browser profiles, the CLI's own)
// go to one directory of the run, which is deleted when the run ends: the test workers and every process they
// start inherit its TMPDIR, so a test that leaves a directory behind does not leave it on the machine.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

export default function setup(): () => void {
  buildDist();
  const runTmp = mkdtempSync(join(tmpdir(), 'skillsmith-tests-'));
  // Open like /tmp itself: the test PostgreSQL clusters run as another user (never as root).
  chmodSync(runTmp, 0o1777);
  process.env.TMPDIR = runTmp;
  return () => rmSync(runTmp, { recursive: true, force: true });
}

function buildDist(): void {
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
