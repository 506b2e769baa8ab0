import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const BUILT = existsSync(join(ROOT, 'dist', 'instrument', 'index.js'));
const tmp = mkdtempSync(join(tmpdir(), 'skillsmith-examples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(example: string) {
  const db = join(tmp, `${example}.db`);
  const r = spawnSync(process.execPath, [join(ROOT, 'examples', 'agents', `${example}.mjs`), '--db', db], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The examples run against dist/ (`npm run build`), like a user would run them.
describe.skipIf(!BUILT)('offline agent examples: record, learn, recall', () => {
  it.each(['openai-loop', 'anthropic-loop', 'vercel-ai', 'mcp-client'])(
    '%s records five runs, learns the procedure and recalls it for a new goal',
    (example) => {
      const r = run(example);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/5 sessions recorded; synthesis created 1 skill\(s\): cancel-pending-order/);
      expect(r.stdout).toMatch(/recall "Please cancel my order #W6006[^"]*" -> cancel-pending-order/);
      expect(r.stdout).toContain('1. Call `find_user_id_by_email`');
      // What reached the skill went through capture privacy: no customer email in the recalled procedure.
      const skill = r.stdout.slice(r.stdout.indexOf('### Skill:'));
      expect(skill).toMatch(/When: /);
      expect(skill).not.toMatch(/@example\.com/);
    },
  );
});
