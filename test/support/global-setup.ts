// Runs once before the suite: the CLI, MCP, dashboard, fleet and crash-safety tests launch the built CLI in
// dist/, so dist/ is rebuilt whenever anything it is built from changed since the last build. Otherwise those
// tests would pass or fail on a stale build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
/** Written by `npm run build` when it succeeds (package.json). */
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.web.json'];

/** Newest modification time under `path`; directories count too, so a deleted file is a change. */
function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let latest = st.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

export default function buildDist(): void {
  const changed = Math.max(...INPUTS.map((p) => newest(join(ROOT, p))));
  if (existsSync(STAMP) && statSync(STAMP).mtimeMs >= changed) return;
  console.log('building dist/ first (npm run build): tests launch the built CLI and src/ changed since the last build');
  const started = Date.now();
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    throw new Error(
      `npm run build failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}): fix the errors above; the tests that launch dist/ would otherwise run a stale build`,
    );
  }
  console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
