import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * CONTRIBUTING.md "Where a test lives": a test beside the code uses only src/. Its imports are checked by
 * dependency-cruiser; this also catches a path it builds to a fixture or helper under test/.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const REACHES_INTO_TEST = /\btest\/(support|fixtures)\b|'test',\s*'(support|fixtures)'/;
/** Tests beside the code that may still reach into test/ (none now; the set only shrinks). */
const NOT_YET = new Set<string>();

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(path);
    return /\.(test|case|contract)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('tests beside the code', () => {
  it('import and read nothing from test/', () => {
    const files = testFilesUnder(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(40);
    const reaching = files
      .map((file) => relative(ROOT, file))
      .filter((name) => !NOT_YET.has(name) && REACHES_INTO_TEST.test(readFileSync(join(ROOT, name), 'utf8')));
    expect(reaching, 'move them to test/ (CONTRIBUTING.md)').toEqual([]);
  });
});
