import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Production code throws the coded errors of src/errors/ (a stable `code`, a REST status and a CLI exit code),
 * never a bare `Error`: a caller can tell what went wrong without reading the message. Tests and the shared
 * contract suites (*.contract.ts) may build plain errors.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const BARE_ERROR = /\bnew Error\s*\(|\bthrow Error\s*\(/g;

/** Files that may still build bare errors, with how many (none now; the list only shrinks). */
const NOT_YET: Readonly<Record<string, number>> = {};

function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return productionFiles(path);
    const isSource = entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts');
    const isTestOnly = entry.name.endsWith('.test.ts') || entry.name.endsWith('.contract.ts');
    return isSource && !isTestOnly ? [path] : [];
  });
}

describe('production code under src/', () => {
  it('throws coded errors, not bare Error', () => {
    const files = productionFiles(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const name = relative(ROOT, file);
      const count = readFileSync(file, 'utf8').match(BARE_ERROR)?.length ?? 0;
      if (count > (NOT_YET[name] ?? 0)) found.push(`${name}: ${count} x new Error(`);
    }
    expect(found, 'use a class from src/errors/ (or add one there)').toEqual([]);
  });
});
