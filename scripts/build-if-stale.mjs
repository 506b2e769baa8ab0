#!/usr/bin/env node
// Builds dist/ (`npm run build`) only when something it is built from changed since the last build, which
// `npm run build` records in dist/.build-stamp. Used by `prepare` (npm install, and npx, which installs this
// package into its own cache on first use and runs `prepare` there: a full build made the first
// `npx skillsmith` take 10-20 s) and by the test suite's global setup (tests launch the built CLI).
// Exit code: 0 built or already current, else the build's.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.web.json'];

/** Newest modification time under `path`; directories count too, so a deleted file is a change. */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let latest = st.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

const changed = Math.max(...INPUTS.map((p) => newest(join(ROOT, p))));
if (existsSync(STAMP) && statSync(STAMP).mtimeMs >= changed) process.exit(0);
const why = existsSync(STAMP) ? 'src/ changed since the last build' : 'no build yet';
console.error(`building dist/ (npm run build): ${why}`);
const started = Date.now();
const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
if (r.status !== 0) {
  console.error(`npm run build failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
  process.exit(r.status || 1);
}
console.error(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
