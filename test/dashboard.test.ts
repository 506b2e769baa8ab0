import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { chromiumExecutable } from './support/browser.js';
import { OTHER_CODING, scriptedSession, UPGRADES } from './support/coding-tasks.js';
import { learnSample, ROOT, startCli, type Child } from './support/surfaces.js';

/** Screenshots of the main views, kept after the run (the README shows one). */
const ARTIFACTS = join(ROOT, 'test', 'artifacts', 'dashboard');

let tmp: string;
let server: Child;
let browser: BrowserContext;
let page: Page;
/** Every URL the browser asked for. */
const requested: string[] = [];

interface SkillRow {
  name: string;
  enabled: boolean;
  sourceSessions: string[];
}

const api = async <T>(path: string): Promise<T> => (await fetch(`${server.url}${path}`)).json() as Promise<T>;

async function open(hash: string) {
  await page.goto(`${server.url}/${hash}`);
  await page.locator('main > h1').first().waitFor();
}

async function shot(name: string, fullPage = false) {
  await page.evaluate(() => {
    for (const t of document.querySelectorAll('.toast')) t.remove();
  });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

async function recalledNames(goal: string): Promise<string[]> {
  await open('#/search');
  await page.getByLabel('Goal').fill(goal);
  await page.getByRole('button', { name: 'Recall' }).click();
  await page.locator('#recall-results h2').waitFor();
  return page
    .locator('#recall-results li[data-skill]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-skill')!));
}

beforeAll(async () => {
  const executablePath = await chromiumExecutable();
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-dashboard-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  const db = join(tmp, 'memory.db');
  await learnSample(db);
  server = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  browser = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath,
    headless: true,
    viewport: { width: 1366, height: 820 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  browser.on('request', (r) => void requested.push(r.url()));
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => {
    throw e;
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('dashboard', () => {
  it('the skills table shows the learned skills with status, eta, track record and a switch', async () => {
    await open('#/skills');
    const rows = page.locator('table.skills tbody tr[data-skill]');
    await expect.poll(() => rows.count()).toBe(6);
    const names = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-skill')));
    expect(names).toEqual([
      'escalate-order-return',
      'exchange-delivered-order-items',
      'fix-mobile-data',
      'fix-phone-service',
      'modify-pending-order-items',
      'return-delivered-order-items',
    ]);
    await expect.poll(() => page.locator('#skills-count').textContent()).toBe('6 skills live');
    const row = page.locator('tr[data-skill="exchange-delivered-order-items"]');
    const shown = await api<SkillRow & { successCount: number; attemptCount: number }>(
      '/api/skills/exchange-delivered-order-items',
    );
    expect(await row.locator('td').nth(1).textContent()).toBe('probationary');
    // The eta its evidence gave it: the Beta posterior over the sessions that followed the procedure.
    expect(await row.locator('td').nth(2).textContent()).toContain(
      ((shown.successCount + 1) / (shown.attemptCount + 2)).toFixed(2),
    );
    expect(await row.locator('td').nth(3).textContent()).toBe(
      `${shown.successCount}/${shown.attemptCount} (${Math.round((100 * shown.successCount) / shown.attemptCount)}%)`,
    );
    // No run since it was learned has given it a trial.
    expect(await row.locator('td').nth(4).textContent()).toBe('no trials yet');
    expect(await row.locator('td').nth(6).textContent()).toBe('never');
    expect(await page.locator('#enabled-exchange-delivered-order-items').isChecked()).toBe(true);
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    await shot('skills');
  });

  it('is usable with a keyboard: a skip link first, real links and switches', async () => {
    await open('#/skills');
    await page.reload();
    await page.locator('main > h1').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await page.locator('#link-fix-mobile-data').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('fix-mobile-data');
  });

  it('toggling a skill off removes it from recall; toggling it on brings it back', async () => {
    const skill = await api<SkillRow>('/api/skills/fix-mobile-data');
    const goal = (await api<{ goal: string }>(`/api/sessions/${encodeURIComponent(skill.sourceSessions[0])}`)).goal;
    expect(await recalledNames(goal)).toContain('fix-mobile-data');
    await shot('search');

    await open('#/skills');
    const toggle = page.locator('#enabled-fix-mobile-data');
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await api<SkillRow>('/api/skills/fix-mobile-data')).enabled).toBe(false);
    expect(await toggle.isChecked()).toBe(false);
    expect(await recalledNames(goal)).not.toContain('fix-mobile-data');

    await open('#/skills');
    await page.locator('#enabled-fix-mobile-data').click();
    await expect.poll(async () => (await api<SkillRow>('/api/skills/fix-mobile-data')).enabled).toBe(true);
    expect(await recalledNames(goal)).toContain('fix-mobile-data');

    // From the keyboard, the focus stays on the switch: a second Space undoes the first.
    await open('#/skills');
    await page.locator('#enabled-fix-mobile-data').focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await api<SkillRow>('/api/skills/fix-mobile-data')).enabled).toBe(false);
    await expect.poll(() => page.locator('#enabled-fix-mobile-data').getAttribute('aria-busy')).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('enabled-fix-mobile-data');
    await page.keyboard.press('Space');
    await expect.poll(async () => (await api<SkillRow>('/api/skills/fix-mobile-data')).enabled).toBe(true);
  });

  it('the skill page renders the SKILL.md, the track record chart and the provenance down to each tool call', async () => {
    const skill = await api<SkillRow>('/api/skills/return-delivered-order-items');
    // A few signals, so the track record has a line to draw.
    for (const signal of ['pass', 'pass', 'up', 'fail', 'pass']) {
      const r = await fetch(`${server.url}/api/skills/return-delivered-order-items/feedback`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ signal }),
      });
      expect(r.status).toBe(200);
    }
    // The page hears about it over the event stream and updates its header.
    await expect.poll(() => page.locator('#stats').textContent()).toContain('1 active');
    expect(await page.locator('#stats').textContent()).toContain('embedder glove-sif-lex@4 · distiller heuristic');
    await open('#/skills');
    await page.locator('#link-return-delivered-order-items').click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('return-delivered-order-items');
    expect(await page.locator('.markdown h3').first().textContent()).toBe('Return Delivered Order Items');
    expect(await page.locator('main h1').count()).toBe(1);
    expect(await page.locator('.markdown ol li').count()).toBeGreaterThan(2);
    expect(await page.locator('svg.chart polyline.eta').count()).toBe(1);
    expect(await page.locator('svg.chart circle.eta').count()).toBe(6);
    await shot('skill', true);

    // The first ten sources, then a button for the rest (a skill of a busy memory has hundreds).
    const n = skill.sourceSessions.length;
    expect(n).toBeGreaterThan(10);
    const sources = page.locator('ul.sources li.source');
    expect(await sources.count()).toBe(10);
    expect(await page.getByText(`Learned from ${n} source sessions (the first 10 below):`).count()).toBe(1);
    await page.getByRole('button', { name: `Show all ${n} source sessions` }).click();
    await expect.poll(() => sources.count()).toBe(n);
    expect(await page.getByRole('button', { name: /^Show all \d+ source sessions$/ }).count()).toBe(0);
    expect((await sources.evaluateAll((els) => els.map((e) => e.getAttribute('data-session')))).sort()).toEqual(
      [...skill.sourceSessions].sort(),
    );
    const first = sources.first();
    await first.getByRole('button', { name: /Show \d+ tool calls?/ }).click();
    await first.locator('ol.calls li.call').first().waitFor();
    // Its sources find the user by name and zip code or by email: the first call of either is that lookup.
    expect(await first.locator('ol.calls li.call code.tool').first().textContent()).toMatch(
      /^find_user_id_by_(?:name_zip|email)$/,
    );
    await shot('skill-provenance');

    await first.locator('a.session-id').click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('Session');
    expect(await page.locator('ol.calls li.call').count()).toBeGreaterThan(3);
  });

  it('renames a skill from its page: a refused name is said with the reason, a free one opens its new page', async () => {
    await open('#/skills/modify-pending-order-items');
    await page.getByRole('button', { name: 'Rename' }).click();
    const input = page.getByLabel('New name');
    expect(await input.evaluate((e) => e === document.activeElement)).toBe(true);
    await input.fill('fix-mobile-data');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect
      .poll(() => page.locator('.toast.error').last().textContent())
      .toMatch(/Could not rename modify-pending-order-items: .*another live skill is named fix-mobile-data/);
    expect(await page.locator('main > h1').textContent()).toBe('modify-pending-order-items');

    await input.fill('change-order-items');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('change-order-items');
    expect(await page.locator('.markdown h3').first().textContent()).toBe('Change Order Items');
    expect(await page.locator('table.versions tr[data-version="1.1.0"] td').nth(1).textContent()).toBe(
      'rename (same procedure)',
    );
    expect((await fetch(`${server.url}/api/skills/modify-pending-order-items`)).status).toBe(404);
    expect((await api<{ name: string }>('/api/skills/change-order-items')).name).toBe('change-order-items');

    // A bookmark of the old name opens the skill under its new one, says so, and the address follows.
    await open('#/skills/modify-pending-order-items');
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('change-order-items');
    expect(await page.locator('.toast').last().textContent()).toBe(
      'modify-pending-order-items was renamed change-order-items: showing change-order-items.',
    );
    expect(new URL(page.url()).hash).toBe('#/skills/change-order-items');
  });

  it('promotes selected sessions to a skill: a dry-run preview first, then the commit creates it', async () => {
    const all = await api<{ items: { id: string; outcome: string; tools: string[] }[] }>('/api/sessions?limit=200');
    const chosen = all.items
      .map((s, index) => ({ ...s, index }))
      .filter(
        (s) =>
          s.outcome === 'success' &&
          // Roaming fixes that needed no data toggle: a kind the sample's pass learned no skill for.
          s.tools.includes('enable_roaming') &&
          !s.tools.includes('toggle_data'),
      );
    expect(chosen.length).toBeGreaterThan(0);

    for (const s of chosen) {
      await open(`#/sessions?offset=${Math.floor(s.index / 25) * 25}`);
      await page.locator(`input[data-session="${s.id}"]`).check();
    }
    await expect
      .poll(() => page.locator('#selected-count').textContent())
      .toBe(`${chosen.length} session${chosen.length === 1 ? '' : 's'} selected`);
    await page.locator('#preview-skill').click();
    await page.locator('#preview-title').waitFor();
    // Named by its action; a name a superseded skill once had stays taken, so it may carry a suffix.
    const title = (await page.locator('#preview-title').textContent())!;
    expect(title).toMatch(/^Preview: fix-mobile-data-enable-roaming(-\d+)?$/);
    const name = title.replace('Preview: ', '');
    expect(await page.locator('#promotion').textContent()).toContain(
      'Dry run, nothing written yet: a new skill would be added.',
    );
    expect(await page.locator('#promotion .markdown h3').count()).toBe(1);
    expect((await api<{ total: number }>('/api/skills')).total).toBe(6);
    await shot('promote-preview');

    await page.getByRole('button', { name: 'Create this skill' }).click();
    await page.locator('#committed-skill').waitFor();
    expect(await page.locator('#committed-skill').textContent()).toBe(name);
    expect((await api<{ total: number }>('/api/skills')).total).toBe(7);

    await page.locator('#committed-skill').click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe(name);
    const sources = await page
      .locator('ul.sources li.source')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-session')));
    // The page lists exactly the sessions the skill was distilled from: the chosen ones that followed its
    // procedure (compile keeps the followers, as a pass does).
    const stored = await api<{ sourceSessions: string[] }>(`/api/skills/${name}`);
    expect(sources.sort()).toEqual([...stored.sourceSessions].sort());
    expect(sources.length).toBeGreaterThan(0);
    for (const id of sources) expect(chosen.map((s) => s.id)).toContain(id);

    await open('#/skills');
    await expect.poll(() => page.locator('table.skills tbody tr[data-skill]').count()).toBe(7);
  });

  it('a preview that would write no skill says why and offers only to discard it', async () => {
    const all = await api<{ items: { id: string; outcome: string }[] }>('/api/sessions?limit=200');
    const index = all.items.findIndex((s) => s.outcome === 'failure');
    expect(index).toBeGreaterThanOrEqual(0);
    await open(`#/sessions?offset=${Math.floor(index / 25) * 25}`);
    await page.locator(`input[data-session="${all.items[index]!.id}"]`).check();
    await page.locator('#preview-skill').click();
    await page.locator('#preview-title').waitFor();
    expect(await page.locator('#promotion').textContent()).toContain(
      'Dry run, nothing written yet: no skill would be written.',
    );
    expect(await page.locator('#commit-skill').count()).toBe(0);
    await page.getByRole('button', { name: 'Discard preview' }).click();
    expect(await page.locator('#preview-title').count()).toBe(0);
    await page.getByRole('button', { name: 'Clear selection' }).click();
  });

  it('a preview leaves a selected session still open out, and names it with why', async () => {
    const started = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
      body: JSON.stringify({ goal: 'Enable roaming for a customer abroad', id: 'still-running' }),
    });
    expect(started.status).toBe(201);
    const all = await api<{ items: { id: string; outcome: string; tools: string[] }[] }>('/api/sessions?limit=200');
    const ended = all.items.findIndex((s) => s.outcome === 'success' && s.tools.includes('enable_roaming'));
    expect(ended).toBeGreaterThanOrEqual(0);
    const running = all.items.findIndex((s) => s.id === 'still-running');
    expect(running).toBeGreaterThanOrEqual(0);
    await open(`#/sessions?offset=${Math.floor(running / 25) * 25}`);
    await page.locator('input[data-session="still-running"]').check();
    await open(`#/sessions?offset=${Math.floor(ended / 25) * 25}`);
    await page.locator(`input[data-session="${all.items[ended]!.id}"]`).check();
    await page.locator('#preview-skill').click();
    await page.locator('#preview-title').waitFor();
    expect(await page.locator('#left-out li').allTextContents()).toEqual([
      'Left out still-running: still open: it has not ended and has no outcome; end it or report its outcome first',
    ]);
    await page.getByRole('button', { name: 'Discard preview' }).click();
    await page.getByRole('button', { name: 'Clear selection' }).click();
  });

  it('a search that matches no skill says so, not that the memory has none', async () => {
    await open('#/skills?q=zzz-no-such-skill');
    await expect
      .poll(() => page.locator('table.skills tbody td.empty').textContent())
      .toBe('No skill matches this search.');
    await expect.poll(() => page.locator('#skills-count').textContent()).toBe('0 skills match');
  });

  it('search by goal shows what recall returns, with the context pack', async () => {
    expect(await recalledNames('I want to return some items of my delivered order')).toContain(
      'return-delivered-order-items',
    );
    // A skill that branches on what a lookup shows lists its branches under its main path, as the contract has them.
    expect(await recalledNames('My mobile data is not working, it is very slow')).toContain('fix-mobile-data');
    const learned = await api<{
      branches: { when: { tool: string; path: string; in: string[]; available?: true } }[];
    }>('/api/skills/fix-mobile-data');
    // Its first branch is on the agent's tools (the phone's), the second on what the line lookup shows.
    expect(learned.branches.map((b) => !!b.when.available)).toEqual([true, false]);
    const [onTools, onLookup] = learned.branches.map((b) => b.when);
    const items = page.locator('li[data-skill="fix-mobile-data"] ul.branches li');
    expect(await items.nth(0).textContent()).toContain(`If you can call ${onTools.tool}: `);
    expect(await items.nth(1).textContent()).toContain(
      `If ${onLookup.tool} shows ${onLookup.path} in ${JSON.stringify(onLookup.in)}: `,
    );
    expect(await page.locator('pre.context').textContent()).toContain('## Relevant procedures from past runs');
    expect(await recalledNames('Bake sourdough bread with a rye starter')).toEqual([]);
    expect(await page.locator('#recall-results h2').textContent()).toBe('No skill recalled');
  });

  it('imports a log file: what would be stored first, then the sessions are stored and listed', async () => {
    const before = (await api<{ total: number }>('/api/sessions')).total;
    await open('#/sessions');
    await page
      .locator('#import-log')
      .setInputFiles(join(ROOT, 'test', 'fixtures', 'capture', 'ai-sdk-ui-messages.json'));
    await page.locator('#import-title').waitFor();
    expect(await page.locator('#import').textContent()).toContain(
      'Dry run, nothing stored yet: 3 sessions with 6 tool calls (ai-sdk).',
    );
    expect(await page.locator('#import ol.log-sessions li').count()).toBe(3);
    // Each session with its tools, and how many of its calls failed (the first retried a timed-out one).
    expect(await page.locator('#import ol.log-sessions li').first().textContent()).toContain(
      'getOrder > trackShipment > trackShipment (1 failed)',
    );
    // The address the user typed is redacted in the preview as it will be in the store.
    expect(await page.locator('#import').textContent()).not.toContain('mia.li3818@example.com');
    expect((await api<{ total: number }>('/api/sessions')).total).toBe(before);
    await shot('import-log-preview');

    await page.getByRole('button', { name: 'Store 3 sessions' }).click();
    await page.locator('#log-stored').waitFor();
    expect(await page.locator('#log-stored').textContent()).toBe(
      'Stored 3 new sessions from ai-sdk-ui-messages.json; 0 already present.',
    );
    expect((await api<{ total: number }>('/api/sessions')).total).toBe(before + 3);
    await expect.poll(() => page.locator('tr[data-session="chat_7f3k2q9d"]').count()).toBe(1);
    // Stored sessions are learned from by a pass: the page offers one and says what it wrote.
    await page.locator('#learn-now').click();
    await expect
      .poll(() => page.locator('#learn-result').textContent())
      .toMatch(/^(Learned \d+ skills?: |No (new )?skill)/);

    // The same log again: the preview says it is stored already, and offers nothing to store.
    await page
      .locator('#import-log')
      .setInputFiles(join(ROOT, 'test', 'fixtures', 'capture', 'ai-sdk-ui-messages.json'));
    await expect
      .poll(() => page.locator('#import p').first().textContent())
      .toBe('Dry run, nothing stored yet: 3 sessions with 6 tool calls (ai-sdk). All of them are already stored.');
    expect(await page.locator('#import ol.log-sessions .badge').allTextContents()).toEqual([
      'already stored',
      'already stored',
      'already stored',
    ]);
    const again = page.locator('#store-log');
    expect(await again.textContent()).toBe('Nothing new to store');
    expect(await again.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Discard' }).click();
  });

  it('keeps the sessions table and a session page within the window, whatever a goal or a tool name holds', async () => {
    const write = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // A pasted file for a goal (no space in 300,000 characters) and a tool name with no break in it.
    const goal = `Summarise_${'x'.repeat(300_000)}`;
    expect((await write('POST', '/api/sessions', { goal, id: 'wide-1' })).status).toBe(201);
    const tool = `get_router_status_${'y'.repeat(120)}`;
    expect((await write('POST', '/api/sessions/wide-1/calls', { tool, args: {} })).status).toBe(201);
    try {
      // From another view, so the sessions view is drawn again with the session just recorded.
      await open('#/search');
      await open('#/sessions');
      await page.locator('tr[data-session="wide-1"]').waitFor();
      const table = await page
        .locator('.table-wrap')
        .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(table.scroll).toBeLessThanOrEqual(table.client + 1);
      // Every row keeps its outcome and date columns in view.
      const started = await page.locator('tr[data-session="wide-1"] td').nth(5).boundingBox();
      expect(started!.x + started!.width).toBeLessThanOrEqual(1366);
      await shot('sessions-long-goal');

      await open(`#/sessions/${encodeURIComponent('wide-1')}`);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: innerWidth }));
      expect(widths.page).toBeLessThanOrEqual(widths.window);
      expect(await page.locator('p.goal').textContent()).toMatch(/… \(296,010 more characters\)$/);
      // A session still recording has no end yet, and says so (not a bare dash).
      expect(await page.locator('dl.facts dt:text-is("Ended") + dd').textContent()).toBe('not ended');
    } finally {
      expect((await write('DELETE', '/api/sessions/wide-1')).status).toBe(200);
    }
  });

  it('shows a goal in Arabic right to left and cuts a long goal of emoji between characters', async () => {
    const write = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const arabic = 'هل يمكنك إلغاء الطلب قبل شحنه؟';
    // The list cuts a goal at 139 code units: here between the two halves of an emoji.
    const emoji = `${'x'.repeat(138)}${'😀'.repeat(20)}`;
    expect((await write('POST', '/api/sessions', { goal: arabic, id: 'rtl-1' })).status).toBe(201);
    expect((await write('POST', '/api/sessions', { goal: emoji, id: 'emoji-1' })).status).toBe(201);
    try {
      await open('#/search');
      await open('#/sessions');
      const link = page.locator('tr[data-session="rtl-1"] a').first();
      await link.waitFor();
      // Its own direction, from its first letter: the question mark ends the question on its left, and the
      // columns beside it keep theirs.
      expect(await link.getAttribute('dir')).toBe('auto');
      expect(await link.evaluate((el) => el.matches(':dir(rtl)'))).toBe(true);
      const cut = (await page.locator('tr[data-session="emoji-1"] a').first().textContent()) ?? '';
      expect(cut.endsWith('…')).toBe(true);
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      await open(`#/sessions/${encodeURIComponent('rtl-1')}`);
      expect(await page.locator('p.goal').evaluate((el) => el.matches(':dir(rtl)'))).toBe(true);
    } finally {
      expect((await write('DELETE', '/api/sessions/rtl-1')).status).toBe(200);
      expect((await write('DELETE', '/api/sessions/emoji-1')).status).toBe(200);
    }
  });

  it('on a phone-wide window the tables scroll in their frames: a goal keeps its words on a line, the page its width', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      for (const view of ['#/sessions', '#/skills']) {
        await open(view);
        await page.locator('.table-wrap tbody tr').first().waitFor();
        const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: innerWidth }));
        expect(widths.page, view).toBeLessThanOrEqual(widths.window);
      }
      await open('#/sessions');
      const row = await page.locator('.table-wrap tbody tr').first().boundingBox();
      expect(row!.height).toBeLessThan(300);
    } finally {
      await page.setViewportSize({ width: 1366, height: 820 });
    }
  });

  it('says the server does not answer when a request gets no answer at all, and puts the switch back', async () => {
    await open('#/skills');
    await page.route('**/api/skills/fix-mobile-data', (route) => route.abort('connectionrefused'));
    try {
      await page.locator('#enabled-fix-mobile-data').click();
      await expect
        .poll(() => page.locator('.toast.error').last().textContent())
        .toMatch(/^Could not change fix-mobile-data: The Skillsmith server does not answer: is it still running\?/);
      expect(await page.locator('#enabled-fix-mobile-data').isChecked()).toBe(true);
    } finally {
      await page.unroute('**/api/skills/fix-mobile-data');
    }
  });

  it('keeps the sessions page in the URL: a reload shows the same page, Back the one before', async () => {
    const firstIds = async () =>
      page.locator('table.sessions tbody tr[data-session]').evaluateAll((els) => els.map((e) => e.dataset.session));
    const second = await api<{ total: number; items: { id: string }[] }>('/api/sessions?limit=25&offset=25');
    expect(second.total).toBeGreaterThan(50);
    await open('#/sessions');
    // Drawn whole: the router moves the focus to the heading once the view is done, not in the middle of the test.
    await page.locator('#look-alike[data-loaded="true"]').waitFor({ state: 'attached' });
    const first = await firstIds();
    const next = page.locator('#sessions-page-next');
    await next.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions?offset=25');
    await expect.poll(firstIds).toEqual(second.items.map((s) => s.id));
    // The focus stays on the button that turned the page.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sessions-page-next');

    await page.reload();
    await page.locator('main > h1').waitFor();
    await expect.poll(firstIds).toEqual(second.items.map((s) => s.id));
    expect(await page.locator('nav.pager span').textContent()).toBe(` 26–50 of ${second.total} `);

    await page.goBack();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions');
    await expect.poll(firstIds).toEqual(first);
    // A page past the end (a link from a longer list): the last page, and the URL says which.
    const lastOffset = Math.floor((second.total - 1) / 25) * 25;
    await open('#/sessions?offset=5000');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/sessions?offset=${lastOffset}`);
    expect(await page.locator('nav.pager span').textContent()).toBe(
      ` ${lastOffset + 1}–${second.total} of ${second.total} `,
    );
  });

  it("edits a skill's SKILL.md from its page: the steps become its procedure, kept until handed back", async () => {
    const name = 'escalate-order-return';
    const before = await api<{ toolSequence: string[] }>(`/api/skills/${name}`);
    expect(before.toolSequence).toContain('get_order_details');
    await open(`#/skills/${name}`);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const box = page.getByLabel('SKILL.md');
    expect(await box.evaluate((e) => e === document.activeElement)).toBe(true);
    const text = await box.inputValue();
    expect(text).toMatch(/^name: escalate-order-return$/m);
    // A text that names another skill is refused with the reason; the box stays.
    await box.fill(text.replace(`name: ${name}`, 'name: hand-over-return'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.locator('.toast.error').last().textContent())
      .toMatch(/Could not save escalate-order-return: .*skills rename escalate-order-return hand-over-return/);
    // The order lookup dropped, a warning added.
    const edited = text
      .replace(/^3\. Call `get_order_details`.*\n/m, '')
      .replace(/^4\. /m, '3. ')
      .replace('## Edge cases\n', '## Edge cases\n\n- Say who takes over before the transfer.\n');
    expect(edited).not.toBe(text);
    await box.fill(edited);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('#edited-note').count()).toBe(1);
    expect(await page.locator('#edited-note p').first().textContent()).toMatch(
      /^Edited by a person \(http, .+\): later passes keep this text\.$/,
    );
    expect(await page.locator('.markdown').textContent()).toContain('Say who takes over before the transfer.');
    expect(await page.locator('table.versions tr[data-version="1.1.0"] td').nth(1).textContent()).toBe('edit');
    const now = await api<{ toolSequence: string[]; version: string }>(`/api/skills/${name}`);
    expect(now).toMatchObject({ version: '1.1.0' });
    expect(now.toolSequence).toEqual(before.toolSequence.filter((t) => t !== 'get_order_details'));
    await shot('skill-edited');

    await page.getByRole('button', { name: 'Hand back to the learner' }).click();
    await expect.poll(() => page.locator('#edited-note').count()).toBe(0);
    const back = await api<{ toolSequence: string[]; version: string }>(`/api/skills/${name}`);
    expect(back).toMatchObject({ version: '1.2.0', toolSequence: before.toolSequence });
  });

  it('made no request outside the server it was served from', () => {
    const origin = new URL(server.url).origin;
    const outside = requested.filter(
      (u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'),
    );
    expect(requested.length).toBeGreaterThan(10);
    expect(outside).toEqual([]);
  });
});

describe('dashboard on an empty memory', () => {
  let empty: Child;
  beforeAll(async () => {
    const config = join(tmp, 'three-sessions.json');
    writeFileSync(config, JSON.stringify({ synthesis: { minOccurrences: 3 } }));
    empty = await startCli([
      'serve',
      '--port',
      '0',
      '--db',
      join(tmp, 'empty.db'),
      '--config',
      config,
      '--log-level',
      'error',
    ]);
  });
  afterAll(async () => {
    await empty?.stop();
  });

  it('says how many similar sessions a skill needs, as this memory is configured', async () => {
    await page.goto(`${empty.url}/#/skills`);
    await page.locator('main > h1').first().waitFor();
    await expect
      .poll(() => page.locator('table.skills tbody td.empty').textContent())
      .toBe(
        'No skills yet: a skill needs at least 3 similar successful sessions (synthesis.minOccurrences) and a synthesis pass after them.',
      );
  });

  it('says how to add sessions when none are stored', async () => {
    await page.goto(`${empty.url}/#/sessions`);
    await page.locator('main > h1').first().waitFor();
    await expect
      .poll(() => page.locator('table.sessions tbody td.empty').textContent())
      .toMatch(
        /^No sessions yet: import a log above, run skillsmith ingest FILE .*POST \/api\/sessions.*record_tool_call/,
      );
    expect(await page.locator('main p.lede').textContent()).toBe('No sessions stored.');
    expect(await page.locator('nav.pager button').count()).toBe(0);
  });
});

describe('dashboard of a library of imported skills', () => {
  let library: Child;
  const TRIAGE = 'triage-support-ticket';
  /** Enough skills for two pages of the list (it shows 50 a page). */
  const WIDGETS = Array.from({ length: 55 }, (_, i) => `report-widget-${String(i).padStart(2, '0')}`);
  const get = async (path: string) => fetch(`${library.url}${path}`);
  const write = (method: string, path: string, body?: unknown) =>
    fetch(`${library.url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const recalled = async (goal: string) =>
    ((await (await write('POST', '/api/recall', { goal })).json()) as { skills: { name: string }[] }).skills.map(
      (s) => s.name,
    );
  const go = async (hash: string) => {
    await page.goto(`${library.url}/${hash}`);
    await page.locator('main > h1').first().waitFor();
  };

  beforeAll(async () => {
    const folders = join(tmp, 'widgets');
    for (const [i, name] of WIDGETS.entries()) {
      mkdirSync(join(folders, name), { recursive: true });
      writeFileSync(
        join(folders, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Report the status of widget ${i}. Use when asked how widget ${i} is doing.\n---\n\n# Report widget ${i}\n\n1. Look the widget up with \`get_widget\`.\n2. Say its status.\n`,
      );
    }
    const db = join(tmp, 'library.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      for (const dir of [folders, join(ROOT, 'test', 'fixtures', 'skills-import')])
        expect((await memory.skills.import(dir)).skipped).toEqual([]);
    } finally {
      await memory.close();
    }
    library = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  });
  afterAll(async () => {
    await library?.stop();
  });

  it('keeps the skills page in the URL: a reload shows the same page, Back the one before', async () => {
    const rows = page.locator('table.skills tbody tr[data-skill]');
    await go('#/skills');
    await expect.poll(() => rows.count()).toBe(50);
    await page.locator('#skills-page-next').click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/skills?offset=50');
    await expect.poll(() => rows.count()).toBe(WIDGETS.length + 2 - 50);
    const second = await rows.evaluateAll((els) => els.map((e) => e.dataset.skill));
    expect(second).toContain(TRIAGE);
    // Next is disabled on the last page: the focus goes to Previous, not to the top of the page.
    expect(await page.locator('#skills-page-next').isDisabled()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('skills-page-prev');

    await page.reload();
    await page.locator('main > h1').waitFor();
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => e.dataset.skill))).toEqual(second);
    expect(await page.locator('nav.pager span').textContent()).toBe(
      ` 51–${WIDGETS.length + 2} of ${WIDGETS.length + 2} `,
    );

    await page.goBack();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/skills');
    await expect.poll(() => rows.count()).toBe(50);
    // With a filter the page stays beside it.
    await go('#/skills?q=widget&offset=50');
    await expect.poll(() => rows.count()).toBe(WIDGETS.length - 50);
    expect(await page.locator('#skill-filter').inputValue()).toBe('widget');
    expect(await page.evaluate(() => location.hash)).toBe('#/skills?q=widget&offset=50');
  });

  it('promotes an imported skill from its page: recall serves it from then on', async () => {
    const skill = (await (await get(`/api/skills/${TRIAGE}`)).json()) as { description: string; corpus: string };
    expect(skill.corpus).toBe('external');
    expect(await recalled(skill.description)).not.toContain(TRIAGE);
    await go(`#/skills/${TRIAGE}`);
    expect(await page.locator('#imported-note').textContent()).toMatch(/never recalled until a person promotes it/);
    await page.getByRole('button', { name: 'Promote' }).click();
    await page.locator('#promoted-note').waitFor();
    expect(await page.locator('#promoted-note').textContent()).toBe(
      'Imported, then promoted: recall can serve it, as it serves a skill learned here.',
    );
    // The focus is on what changed; the note about promoting and its button are gone.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('promoted-note');
    expect(await page.locator('#imported-note').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Promote' }).count()).toBe(0);
    expect(await page.locator('.badges').textContent()).toContain('imported, promoted');
    await expect
      .poll(() => page.locator('.toast').allTextContents())
      .toContain(`${TRIAGE} promoted: it can now be recalled.`);
    expect(((await (await get(`/api/skills/${TRIAGE}`)).json()) as { corpus: string }).corpus).toBe('internal');
    expect(await recalled(skill.description)).toContain(TRIAGE);
    await shot('skill-promoted');
  });

  it('forgets a skill after a confirmation in the page: Cancel or Escape keeps it, confirming deletes it', async () => {
    const name = WIDGETS[3]!;
    await go(`#/skills/${name}`);
    const ask = page.getByRole('button', { name: 'Forget…' });
    const confirm = page.getByRole('group', { name: `Forget ${name}?` });
    expect(await confirm.isHidden()).toBe(true);
    await ask.click();
    await confirm.waitFor();
    expect(await ask.getAttribute('aria-expanded')).toBe('true');
    // The safe choice has the focus.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await shot('skill-forget-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await confirm.isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('forget-skill');
    // From the keyboard: Enter opens it, Escape closes it, the focus back on the button.
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    expect(await confirm.isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('forget-skill');
    expect((await get(`/api/skills/${name}`)).status).toBe(200);

    await ask.click();
    await confirm.getByRole('button', { name: `Forget ${name}` }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/skills');
    await expect.poll(() => page.locator('main > h1').textContent()).toBe('Skills');
    // The router moves the focus to the list's heading once the list is drawn.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await expect
      .poll(() => page.locator('.toast').allTextContents())
      .toContain(`Forgot ${name}: it is no longer stored, and never recalled again.`);
    expect((await get(`/api/skills/${name}`)).status).toBe(404);
    await expect.poll(() => page.locator('#skills-count').textContent()).toBe(`${WIDGETS.length + 1} skills live`);
    expect(await page.locator(`tr[data-skill="${name}"]`).count()).toBe(0);
  });
});

describe('dashboard of a skill its trials retired', () => {
  let desk: Child;
  const SKILL = 'update-ticket';
  beforeAll(async () => {
    // A help desk's close-ticket skill, failed by three runs while the ticket service was down: retired.
    const db = join(tmp, 'desk.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      await memory.ingestFile(join(ROOT, 'test', 'fixtures', 'tool-drift', 'helpdesk-weeks-1-2.jsonl'));
      await memory.synthesize();
      for (let i = 0; i < 3; i++) await memory.feedback(SKILL, 'fail');
      expect((await memory.skills.get(SKILL))!.status).toBe('retired');
    } finally {
      await memory.close();
    }
    desk = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  });
  afterAll(async () => {
    await desk?.stop();
  });

  it('says why recall no longer serves it, and brings it back from its page', async () => {
    const recalled = async () =>
      (
        (await (
          await fetch(`${desk.url}/api/recall`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
            body: JSON.stringify({ goal: 'Close ticket T-1, the customer confirmed the login problem is fixed' }),
          })
        ).json()) as { skills: { name: string }[] }
      ).skills.map((s) => s.name);
    expect(await recalled()).not.toContain(SKILL);
    await page.goto(`${desk.url}/#/skills/${SKILL}`);
    await page.locator('main > h1').first().waitFor();
    expect(await page.locator('.badges').textContent()).toContain('retired');
    expect(await page.locator('#imported-note').textContent()).toMatch(
      /^Not recalled: retired on \d{4}-\d\d-\d\d: 3 of its last 3 trials failed \(eta 0\.\d+, retired below 0\.25\): recall no longer serves it.* skills promote update-ticket brings it back on probation/,
    );
    await page.getByRole('button', { name: 'Bring back' }).click();
    await expect
      .poll(() => page.locator('.toast').allTextContents())
      .toContain(`${SKILL} is back on probation: recall serves it again, and its trials from now on judge it.`);
    await expect.poll(() => page.locator('.badges').textContent()).toContain('probationary');
    expect(await page.getByRole('button', { name: 'Bring back' }).count()).toBe(0);
    expect(await page.locator('#imported-note').count()).toBe(0);
    expect(await recalled()).toContain(SKILL);
  });
});

describe('dashboard of a skill with trials since it was learned', () => {
  let desk: Child;
  const SKILL = 'update-ticket';
  beforeAll(async () => {
    // A help desk's close-ticket skill: two runs said it worked, one that it did not, and the outcome judge read a
    // fourth run nobody reported as a success.
    const db = join(tmp, 'desk-trials.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      await memory.ingestFile(join(ROOT, 'test', 'fixtures', 'tool-drift', 'helpdesk-weeks-1-2.jsonl'));
      await memory.synthesize();
      for (const signal of ['pass', 'pass', 'fail']) await memory.feedback(SKILL, signal);
      const run = await memory.startSession({ goal: 'Close ticket T-9, the customer confirmed the fix', id: 'desk-9' });
      expect((await run.recall()).map((s) => s.name)).toContain(SKILL);
      await run.end('success', null, { source: 'judged' });
      expect(await memory.skills.get(SKILL)).toMatchObject({ trialsAttempted: 4, trialsPassed: 3, judgedTrials: 1 });
      expect((await memory.skills.list()).some((s) => s.trialsAttempted === 0)).toBe(true);
    } finally {
      await memory.close();
    }
    desk = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  });
  afterAll(async () => {
    await desk?.stop();
  });

  it('the skills table has a column of them, and the skill page says the same', async () => {
    await page.goto(`${desk.url}/#/skills`);
    await page.locator('table.skills tbody tr[data-skill]').first().waitFor();
    const headers = await page.locator('table.skills thead th').allTextContents();
    const column = headers.indexOf('Trials since learned');
    expect(column).toBe(headers.indexOf('Followers that succeeded') + 1);
    const cell = (name: string) => page.locator(`tr[data-skill="${name}"] td`).nth(column).textContent();
    expect(await cell(SKILL)).toBe('3/4 passed (75%), 1 judged');
    // A skill nobody has run since it was learned.
    const untried = (await (await fetch(`${desk.url}/api/skills?summary=true`)).json()) as {
      items: { name: string; trialsAttempted: number }[];
    };
    const other = untried.items.find((s) => s.trialsAttempted === 0)!.name;
    expect(await cell(other)).toBe('no trials yet');
    // Its page, from the same skill: the same words.
    await page.locator(`#link-${SKILL}`).click();
    await expect.poll(() => page.locator('main > h1').textContent()).toBe(SKILL);
    const fact = page.locator('dl.facts dt:text-is("Trials since learned") + dd');
    expect(await fact.textContent()).toBe('3/4 passed (75%), 1 judged');
    await page.goto(`${desk.url}/#/skills/${other}`);
    await expect.poll(() => page.locator('main > h1').textContent()).toBe(other);
    expect(await fact.textContent()).toBe('no trials yet');
  });
});

describe('dashboard of a server started with a token', () => {
  let guarded: Child;
  const TOKEN = 'dashboard-token-0123456789';
  beforeAll(async () => {
    guarded = await startCli(['serve', '--port', '0', '--db', join(tmp, 'guarded.db'), '--log-level', 'error'], {
      SKILLSMITH_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await guarded?.stop();
  });

  it('asks for the token, says when one is refused, and opens with the right one', async () => {
    await page.goto(`${guarded.url}/#/skills`);
    await expect.poll(() => page.locator('main > h1').first().textContent()).toBe('Access token');
    expect(await page.locator('#token-refused').count()).toBe(0);
    await page.getByLabel('Token').fill('not-the-token-at-all');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#token-refused').waitFor();
    expect(await page.locator('#token-refused').textContent()).toBe(
      'The server did not accept that token (401). Enter the token it was started with.',
    );
    expect(await page.locator('#live').textContent()).toBe('token needed');
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('main > h1').first().textContent()).toBe('Skills');
    expect(await page.locator('#token-refused').count()).toBe(0);
  });
});

describe('dashboard on a memory an earlier release learned', () => {
  let upgraded: Child;
  beforeAll(async () => {
    const db = join(tmp, 'upgraded.db');
    await learnSample(db);
    // An earlier release of the distiller wrote these skills (their rows and their versions' rows say so);
    // this release's pass re-stamps them.
    const raw = new Database(db);
    const older = (md: string) => md.replace(/learned-by: heuristic@\d+/, 'learned-by: heuristic@1');
    for (const r of raw.prepare('SELECT id, skill_md FROM skills').all() as { id: string; skill_md: string }[])
      raw.prepare('UPDATE skills SET skill_md = ? WHERE id = ?').run(older(r.skill_md), r.id);
    for (const r of raw.prepare('SELECT skill_id, version, skill_md FROM skill_versions').all() as {
      skill_id: string;
      version: string;
      skill_md: string;
    }[])
      raw
        .prepare('UPDATE skill_versions SET skill_md = ? WHERE skill_id = ? AND version = ?')
        .run(older(r.skill_md), r.skill_id, r.version);
    raw.close();
    const memory = await openMemory({ db, logLevel: 'silent' });
    await memory.synthesize();
    await memory.close();
    upgraded = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  });
  afterAll(async () => {
    await upgraded?.stop();
  });

  it('shows what a version changed in the SKILL.md, and says a re-stamp kept the procedure', async () => {
    await page.goto(`${upgraded.url}/#/skills/fix-phone-service`);
    const rows = page.locator('table.versions tbody tr[data-version]');
    await expect.poll(() => rows.count()).toBe(2);
    const restamp = rows.nth(1);
    expect(await restamp.getAttribute('data-version')).toBe('1.0.1');
    expect(await restamp.locator('td').nth(1).textContent()).toBe('update (same procedure)');
    // The first version has nothing before it to compare with.
    expect(await rows.nth(0).getByRole('button', { name: 'Show changes' }).count()).toBe(0);
    await restamp.getByRole('button', { name: 'Show changes' }).click();
    const diff = page.locator('tr.changes pre.diff');
    await diff.waitFor();
    expect(await diff.locator('.removed').allTextContents()).toEqual([
      '-  version: 1.0.0\n',
      '-  learned-by: heuristic@1\n',
    ]);
    expect(await diff.locator('.added').allTextContents()).toEqual([
      '+  version: 1.0.1\n',
      expect.stringMatching(/^\+ {2}learned-by: heuristic@\d+\n$/),
    ]);
    await shot('skill-version-changes');
    await restamp.getByRole('button', { name: 'Hide changes' }).click();
    await expect.poll(() => page.locator('tr.changes').isHidden()).toBe(true);
  });
});

describe('dashboard on a memory whose runs of one task were worded too differently to group', () => {
  let coding: Child;
  beforeAll(async () => {
    const db = join(tmp, 'coding.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    await memory.ingest([...UPGRADES, ...OTHER_CODING].map(scriptedSession));
    await memory.synthesize();
    await memory.close();
    coding = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
  });
  afterAll(async () => {
    await coding?.stop();
  });

  it('lists the sessions alike, selects a group in one click, and the preview and commit learn it', async () => {
    await page.goto(`${coding.url}/#/sessions`);
    await page.locator('#look-alike[data-loaded="true"]').waitFor({ state: 'attached' });
    const group = page.locator('#look-alike ul.look-alike > li');
    await expect.poll(() => group.count()).toBe(1);
    expect((await group.getAttribute('data-sessions'))!.split(',').sort()).toEqual(UPGRADES.map((u) => u.id).sort());
    expect(await group.locator('p code').allTextContents()).toEqual(['npm outdated', 'npm install']);
    expect(await group.locator('ul li a').allTextContents()).toEqual(
      expect.arrayContaining(UPGRADES.map((u) => u.goal)),
    );
    await shot('sessions-look-alike');
    await group.getByRole('button', { name: 'Select these 3 sessions' }).click();
    await expect.poll(() => page.locator('#selected-count').textContent()).toBe('3 sessions selected');
    for (const u of UPGRADES) expect(await page.locator(`input[data-session="${u.id}"]`).isChecked()).toBe(true);
    await page.locator('#preview-skill').click();
    await page.locator('#preview-title').waitFor();
    expect(await page.locator('#promotion').textContent()).toContain('a new skill would be added');
    await page.getByRole('button', { name: 'Create this skill' }).click();
    await page.locator('#committed-skill').waitFor();
    const name = (await page.locator('#committed-skill').textContent())!;
    const skill = (await (await fetch(`${coding.url}/api/skills/${name}`)).json()) as { sourceSessions: string[] };
    expect([...skill.sourceSessions].sort()).toEqual(UPGRADES.map((u) => u.id).sort());
    // Learned: the group is no longer waiting.
    await page.reload();
    await page.locator('#look-alike[data-loaded="true"]').waitFor({ state: 'attached' });
    expect(await page.locator('#look-alike ul.look-alike > li').count()).toBe(0);
  });
});
