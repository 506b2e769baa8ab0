// A skill learned from four release tasks the judge took for successes; the user then rejects three of them, and the
// next pass takes them out of its sources and retires it. Its page in the dashboard (the built server, a real
// Chromium) says which sessions were taken out and why, from the explain answer the REST API serves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/app/open-memory.js';
import { chromiumExecutable } from './support/browser.js';
import { startCli, type Child } from './support/surfaces.js';

const RELEASES = [
  'bump the patch version and tag a release',
  'cut a patch release with a new tag',
  'release a new patch version and tag it',
  'make a patch release and push the tag',
];
const SKILL = 'bump-patch-tag';

let dir: string;
let server: Child;
let browser: BrowserContext;
let page: Page;
/** The release sessions, in the order they were recorded. */
const ids: string[] = [];

async function release(memory: Memory, goal: string, id: string): Promise<void> {
  const run = await memory.startSession({ goal, id });
  await run.call({ tool: 'Bash', args: { command: 'npm version patch' }, result: 'v1.2.4', ok: true });
  await run.call({ tool: 'Bash', args: { command: 'git push --follow-tags' }, result: 'pushed', ok: true });
  await run.end('success', null, { source: 'judged' });
  ids.push(id);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-dashboard-revoked-'));
  const db = join(dir, 'memory.db');
  const memory = await openMemory({ db, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
  try {
    for (const [i, goal] of RELEASES.entries()) await release(memory, goal, `release-${i + 1}`);
    await memory.synthesize();
    // The user said "No, that's wrong" to the first and the third: the next pass takes them out; two remain.
    await memory.reportOutcome(ids[0]!, 'failure');
    await memory.reportOutcome(ids[2]!, 'failure');
    expect((await memory.synthesize()).revised).toMatchObject([{ name: SKILL, revoked: 2, status: 'probationary' }]);
    // Then the second: one remains, fewer than a skill needs; retired.
    await memory.reportOutcome(ids[1]!, 'failure');
    expect((await memory.synthesize()).revised).toMatchObject([{ name: SKILL, revoked: 1, status: 'retired' }]);
  } finally {
    await memory.close();
  }
  server = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: await chromiumExecutable(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => {
    throw e;
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('dashboard of a skill whose sources were reported failed', () => {
  it('the REST explain names the sessions taken out, in the order the passes took them', async () => {
    const ex = (await (await fetch(`${server.url}/api/skills/${SKILL}/explain`)).json()) as {
      parents: { revoked: number; revokedSessions: string[]; sessions: { id: string }[] };
    };
    expect(ex.parents.revoked).toBe(3);
    expect(ex.parents.revokedSessions).toEqual(['release-1', 'release-3', 'release-2']);
    expect(ex.parents.sessions.map((s) => s.id)).toEqual(['release-4']);
  });

  it('the skill page says which sessions were taken out and why, each a link to its session', async () => {
    await page.goto(`${server.url}/#/skills/${SKILL}`);
    await page.locator('main > h1').first().waitFor();
    const note = page.locator('#revoked-sources');
    await note.waitFor();
    expect(await note.textContent()).toBe(
      '3 of the sessions it was learned from were later reported failed: release-1, release-3, release-2; they no longer count.',
    );
    // In the provenance, beside the one session it still rests on.
    expect(await page.locator('section[aria-labelledby="section-provenance"] #revoked-sources').count()).toBe(1);
    expect(await page.locator('li.source').evaluateAll((els) => els.map((e) => e.dataset.session))).toEqual([
      'release-4',
    ]);
    await note.getByRole('link', { name: 'release-3' }).click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('Session');
    expect(await page.locator('main p.goal').textContent()).toBe(RELEASES[2]);
  });
});
