// A memory that lives for months while the agent's tools change under it: a help desk learns to close tickets
// (search_tickets > get_ticket > update_ticket) from two weeks of runs (test/fixtures/tool-drift), its skill is
// recalled and works for weeks, then update_ticket is removed and patch_ticket replaces it; or the ticket service is
// down for a day and comes back. Real SQLite files, the library, the REST server and the built CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Skill } from '../src/domain/types.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { runBuiltCli } from './support/built-cli.js';

const WEEKS_1_2 = new URL('./fixtures/tool-drift/helpdesk-weeks-1-2.jsonl', import.meta.url).pathname;
const CLOSE = [
  (t: string) => `Close ticket ${t}, the customer confirmed the login problem is fixed`,
  (t: string) => `Mark ticket ${t} as resolved: the printer works again`,
  (t: string) => `Resolve support ticket ${t} now that the refund went through`,
  (t: string) => `Set ticket ${t} to resolved, the user says the VPN is back`,
];
/** The tools an agent updated for the new API has: update_ticket is gone. */
const NEW_TOOLS = ['search_tickets', 'get_ticket', 'patch_ticket', 'assign_ticket', 'add_comment'];

/** How a close-ticket run goes: the old API, the old steps after update_ticket was removed, the service down, the new API. */
type Run = 'old' | 'gone' | 'down' | 'new';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A help desk's memory on a clock that moves a few hours a run, over weeks. */
class HelpDesk {
  clock = Date.parse('2025-01-20T09:00:00Z');
  n = 0;
  memory!: Memory;
  readonly dir = mkdtempSync(join(tmpdir(), 'skillsmith-tool-drift-'));
  readonly db = join(this.dir, 'desk.db');

  constructor() {
    dirs.push(this.dir);
  }

  async open() {
    this.memory = await openMemory({
      db: this.db,
      now: () => new Date(this.clock),
      config: { synthesis: { cooldownMs: 0 } },
      logLevel: 'silent',
    });
    return this;
  }

  /** Two weeks of runs, learned from: the close-ticket skill and the escalation skill. */
  async learn() {
    await this.memory.ingestFile(WEEKS_1_2);
    await this.memory.synthesize();
    return this;
  }

  /** One close-ticket run that recalls for its session and reports its outcome: the names recall served it. */
  async close(run: Run, tools?: string[]): Promise<string[]> {
    const t = `T-${5000 + ++this.n}`;
    // Every kind of run is asked for in every wording (the wordings cycle at another pace than the kinds of run).
    const goal = CLOSE[Math.floor(this.n / 3) % CLOSE.length](t);
    const s = await this.memory.startSession({ goal, source: 'helpdesk-agent' });
    const served = await s.recall(undefined, tools ? { tools } : {});
    await s.call({ tool: 'search_tickets', args: { query: t }, result: JSON.stringify([{ id: t }]), ok: true });
    await s.call({
      tool: 'get_ticket',
      args: { ticket_id: t },
      result: JSON.stringify({ id: t, status: 'open' }),
      ok: true,
    });
    const args = { ticket_id: t, status: 'resolved' };
    if (run === 'old')
      await s.call({ tool: 'update_ticket', args, result: JSON.stringify({ id: t, status: 'resolved' }), ok: true });
    if (run === 'gone')
      await s.call({ tool: 'update_ticket', args, result: '410 Gone: use patch_ticket', ok: false, error: '410 Gone' });
    if (run === 'down')
      await s.call({ tool: 'update_ticket', args, result: '503 Service Unavailable', ok: false, error: '503' });
    if (run === 'new')
      await s.call({
        tool: 'patch_ticket',
        args: { ticket_id: t, fields: { status: 'resolved' } },
        result: JSON.stringify({ id: t, status: 'resolved', version: 2 }),
        ok: true,
      });
    await s.end(run === 'old' || run === 'new' ? 'success' : 'failure');
    this.clock += 5 * 3600_000;
    return served.map((h) => h.name);
  }

  /** The live skill whose main path ends in `tool`. */
  async skillCalling(tool: string): Promise<Skill | undefined> {
    return (await this.memory.skills.list()).find((s) => s.toolSequence.at(-1) === tool);
  }

  cli(args: string[]) {
    return runBuiltCli([...args, '--db', this.db], { cwd: this.dir });
  }
}

describe('when the tools change under a learned skill', () => {
  it('a renamed tool: the old skill retires after a run of failures, not after one and not after hundreds; the new procedure is learned and served instead', async () => {
    const desk = await (await new HelpDesk().open()).learn();
    const old = (await desk.skillCalling('update_ticket'))!;
    expect(old.toolSequence).toEqual(['search_tickets', 'get_ticket', 'update_ticket']);
    // Five weeks of use: 30 runs recall it and succeed.
    for (let i = 0; i < 30; i++) expect(await desk.close('old')).toContain(old.name);
    expect(await desk.memory.skills.get(old.id)).toMatchObject({ status: 'active', trialsPassed: 30 });

    // update_ticket is removed. Each day two agents still follow the skill and fail on it; two agents updated for
    // the new API close tickets with patch_ticket. None of them names its tools to recall; a pass runs each night.
    let failedWithOld = 0;
    let day = 0;
    for (; day < 15 && (await desk.memory.skills.get(old.id))!.status !== 'retired'; day++) {
      for (let i = 0; i < 2; i++) if ((await desk.close('gone')).includes(old.name)) failedWithOld++;
      for (let i = 0; i < 2; i++) await desk.close('new');
      await desk.memory.synthesize();
      // An agent that names the tools it has now is never handed the steps it cannot take.
      const mine = await desk.memory.recall(CLOSE[0]('T-9000'), { tools: NEW_TOOLS, record: false });
      expect(mine.map((h) => h.name)).not.toContain(old.name);
      if (failedWithOld === 4) {
        // Not after one failure, nor after four: months of passes still count for something.
        expect((await desk.memory.skills.get(old.id))!.status).toBe('active');
      }
    }
    const retired = (await desk.memory.skills.get(old.id))!;
    expect(retired.status).toBe('retired');
    // After about a window of failures (lifecycle.trialWindow, 20), where its 30 passes held it up for 92.
    expect(failedWithOld).toBeGreaterThan(10);
    expect(failedWithOld).toBeLessThanOrEqual(20);
    // The runs that closed tickets with patch_ticket did not follow it: they are none of its passes.
    expect(retired.trialsPassed).toBe(30);
    expect(retired.trialsAttempted).toBe(30 + failedWithOld);

    // The new procedure was learned, and recall serves it for the same requests, alone: no near-tie with the old one.
    const fresh = (await desk.skillCalling('patch_ticket'))!;
    expect(fresh.toolSequence).toEqual(['search_tickets', 'get_ticket', 'patch_ticket']);
    for (const goal of CLOSE.map((g) => g('T-9001'))) {
      const served = (await desk.memory.recall(goal, { record: false })).map((h) => h.name);
      expect(served[0]).toBe(fresh.name);
      expect(served).not.toContain(old.name);
    }
    // Why the old one is no longer served, and what does its task now.
    const why = (await desk.memory.skills.explain(old.name))!.standing;
    expect(why.recallable).toBe(false);
    expect(why.reason).toMatch(
      new RegExp(
        `^retired on \\d{4}-\\d\\d-\\d\\d: ${failedWithOld} of its last ${Math.min(20, retired.trialsAttempted)} trials failed`,
      ),
    );
    expect(why.reason).toContain(`for the requests it was learned from, recall now serves ${fresh.name}`);
    expect(why.reason).toContain(`skills promote ${old.name}`);

    // Weeks go on with the new API: passes learn from the new runs and never bring the old skill back from its sessions.
    for (let week = 0; week < 2; week++) {
      for (let i = 0; i < 5; i++) await desk.close('new');
      await desk.memory.synthesize();
    }
    const live = await desk.memory.skills.list();
    expect(live.find((s) => s.id === old.id)).toMatchObject({
      status: 'retired',
      trialsAttempted: retired.trialsAttempted,
    });
    expect(live.filter((s) => s.status !== 'retired' && s.toolSequence.includes('update_ticket'))).toEqual([]);
    await desk.memory.close();
  });

  it('a session served two skills gives a trial to the one it followed, not to the one it went past (REST)', async () => {
    const desk = await (await new HelpDesk().open()).learn();
    // Both procedures are known: the old one worked for a while, the new one was learned from the first new runs.
    for (let i = 0; i < 3; i++) await desk.close('old');
    for (let i = 0; i < 4; i++) await desk.close('new');
    await desk.memory.synthesize();
    const old = (await desk.skillCalling('update_ticket'))!;
    const fresh = (await desk.skillCalling('patch_ticket'))!;
    const server = await serveApi(desk.memory, { port: 0, webRoot: null });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
          body: JSON.stringify(body),
        });
        return (await res.json()) as any;
      };
      const run = async (id: string, action: { tool: string; ok: boolean }, outcome: 'success' | 'failure') => {
        const goal = CLOSE[1]('T-7001');
        await post('/api/sessions', { goal, id });
        const served = await post('/api/recall', { goal, sessionId: id, topK: 2 });
        expect(served.skills.map((s: { name: string }) => s.name).sort()).toEqual([old.name, fresh.name].sort());
        await post(`/api/sessions/${id}/calls`, {
          tool: 'search_tickets',
          args: { query: 'T-7001' },
          result: '[]',
          ok: true,
        });
        await post(`/api/sessions/${id}/calls`, {
          tool: 'get_ticket',
          args: { ticket_id: 'T-7001' },
          result: '{}',
          ok: true,
        });
        await post(`/api/sessions/${id}/calls`, {
          ...action,
          args: { ticket_id: 'T-7001' },
          result: action.ok ? 'ok' : '410 Gone',
        });
        return (await post(`/api/sessions/${id}/end`, { outcome })).credited as string[];
      };
      // Closed with patch_ticket: a pass for the new skill only (the old one was served, and went past).
      expect(await run('rest-new', { tool: 'patch_ticket', ok: true }, 'success')).toEqual([fresh.name]);
      // Failed on update_ticket: a fail for the old skill only (patch_ticket was never tried).
      expect(await run('rest-gone', { tool: 'update_ticket', ok: false }, 'failure')).toEqual([old.name]);
      expect(await desk.memory.skills.get(fresh.id)).toMatchObject({ trialsAttempted: 1, trialsPassed: 1 });
      expect(await desk.memory.skills.get(old.id)).toMatchObject({
        trialsAttempted: old.trialsAttempted + 1,
        trialsPassed: old.trialsPassed,
      });
    } finally {
      await server.close();
      await desk.memory.close();
    }
  });

  it('a day the ticket service is down: a short outage does not retire the skill; a long one does, the CLI says why, and promote brings it back', async () => {
    const desk = await (await new HelpDesk().open()).learn();
    const skill = (await desk.skillCalling('update_ticket'))!;
    for (let i = 0; i < 20; i++) await desk.close('old');
    // Down for a morning: twelve runs fail with the right procedure. It is still served, and recovers.
    for (let i = 0; i < 12; i++) expect(await desk.close('down')).toContain(skill.name);
    expect((await desk.memory.skills.get(skill.id))!.status).toBe('active');
    for (let i = 0; i < 5; i++) expect(await desk.close('old')).toContain(skill.name);
    // Down for two days: the skill retires and recall stops serving it.
    let failed = 0;
    while ((await desk.memory.skills.get(skill.id))!.status !== 'retired' && failed < 60) {
      await desk.close('down');
      failed++;
    }
    expect(failed).toBeLessThanOrEqual(20);
    expect(await desk.close('old')).not.toContain(skill.name);
    await desk.memory.close();

    // A person looks: skills show says it is not recalled, why, and how to bring it back.
    const show = desk.cli(['skills', 'show', skill.name]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /not recalled: retired on \d{4}-\d\d-\d\d: \d+ of its last 20 trials failed \(eta 0\.\d+, retired below 0\.25\)/,
    );
    expect(show.stdout).toContain(`skills promote ${skill.name} brings it back on probation`);
    // The service is back: promote brings the skill back, and recall serves it again.
    const promoted = desk.cli(['skills', 'promote', skill.name]);
    expect(promoted.stderr).toBe('');
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toMatch(new RegExp(`^${skill.name} is back on probation \\(eta 0\\.\\d+\\)`));
    const recalled = desk.cli(['recall', CLOSE[2]('T-8000'), '--json']);
    expect(JSON.parse(recalled.stdout).map((s: { name: string }) => s.name)).toContain(skill.name);
    expect(desk.cli(['skills', 'show', skill.name]).stdout).not.toContain('not recalled');

    // It works again: its probation is judged by the runs from now on, and it is active after three passes. (The
    // CLI ran on the wall clock: the desk's clock goes on from there.)
    desk.clock = Date.now() + 3600_000;
    await desk.open();
    for (let i = 0; i < 3; i++) expect(await desk.close('old')).toContain(skill.name);
    const back = (await desk.memory.skills.get(skill.id))!;
    expect(back.status).toBe('active');
    expect(back.eta).toBeGreaterThan(0.8);
    const track = (await desk.memory.skills.explain(skill.id))!.track.map((t) => `${t.signal} ${t.status}`);
    expect(track.slice(-4)).toEqual([
      'user.promote probationary',
      'trial.pass probationary',
      'trial.pass probationary',
      'trial.pass active',
    ]);
    await desk.memory.close();
  });
});
