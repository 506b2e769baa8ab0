// Where the benchmarks find the repository: they run compiled (bench/build/, see bench/tsconfig.json) or as
// sources under vitest, at different depths, so the root is found by walking up to the package's own
// package.json. The code they measure is the built package in dist/ (imported as `#dist/...`).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepo(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'skillsmith')
      return dir;
    if (dirname(dir) === dir) throw new Error(`no skillsmith package.json above ${from}`);
  }
}

/** The repository root. */
export const REPO = findRepo(dirname(fileURLToPath(import.meta.url)));
/** The built command line the CLI benchmarks launch. */
export const CLI = join(REPO, 'dist/surfaces/cli/main.js');
