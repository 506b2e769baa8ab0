import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { seedEta } from '../src/domain/admit.js';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Distiller, DistillInput } from '../src/distillers/distiller.js';
import { HeuristicDistiller } from '../src/distillers/heuristic-distiller.js';
import { redactText } from '../src/domain/redact.js';
import type { BusEvent } from '../src/support/event-bus.js';
import { createLogger } from '../src/support/log.js';
import { orderSession } from './support/capture.js';
import { readTau, TAU_DEV, tempDbPath, toSession } from './support/tau.js';

describe('outcomes become trials of the skills recalled for a session', () => {
  it('replays later sessions as trials: skills whose later sessions fail retire and stop being recalled; explain tells the story', async () => {
    const records = readTau(TAU_DEV);
    const firstPart = records.slice(0, Math.floor(records.length * 0.6));
    const laterPart = records.slice(firstPart.length);
    const memory = await openMemory({ db: tempDbPath(), config: { synthesis: { cooldownMs: 0 } } });
    await memory.ingest(firstPart.map((r) => toSession(r)));
    await memory.synthesize();
    const learned = await memory.skills.list();
    expect(learned.length).toBeGreaterThan(0);

    // Later sessions arrive: each recalls with its goal, runs, and reports its real outcome.
    for (const r of laterPart) {
      const s = await memory.startSession({ goal: r.goal, id: `replay:${r.session_id}` });
      await s.recall();
      await s.end(r.success ? 'success' : 'failure');
    }
    // A skill that later sessions keep failing with: failed trials pull eta below the floor and retire it.
    const victim = learned[0];
    const goal = (await memory.parts.store!.getSession('default', victim.sourceSessions[0]))!.goal;
    for (let i = 0; i < 300; i++) {
      const s = await memory.startSession({ goal, id: `failing-${i}` });
      const served = await s.recall(goal, { topK: 5 });
      if (!served.some((h) => h.id === victim.id)) break;
      await s.end('failure');
    }
    const after = await memory.skills.get(victim.id);
    expect(after!.trialsAttempted).toBeGreaterThanOrEqual(3);
    expect(after!.status).toBe('retired');
    const tried = (await memory.skills.list()).filter((s) => s.trialsAttempted > 0);
    expect(tried.length).toBeGreaterThan(0);
    for (const s of tried) {
      // The Beta posterior over its latest trials (lifecycle.trialWindow, 20), its prior (weight 2) centred on the
      // eta the evidence gave it.
      const latest = (await memory.skills.explain(s.id))!.trials
        .filter((t) => t.signal.startsWith('trial.'))
        .slice(-20);
      const passed = latest.filter((t) => t.signal === 'trial.pass').length;
      expect(latest.length).toBe(Math.min(20, s.trialsAttempted));
      expect(s.eta).toBeCloseTo((passed + 2 * seedEta(s.successCount, s.attemptCount)) / (latest.length + 2), 6);
      if (s.eta < 0.25) expect(s.status).toBe('retired');
      if (s.trialsAttempted >= 3) expect(s.status).not.toBe('probationary');
      else expect(s.status).toBe('probationary');
    }
    const retired = (await memory.skills.list()).filter((s) => s.status === 'retired');
    expect(retired.map((s) => s.id)).toContain(victim.id);
    for (const s of retired) {
      const source = (await memory.parts.store!.getSession('default', s.sourceSessions[0]))!;
      expect((await memory.recall(source.goal, { topK: 5 })).map((h) => h.id)).not.toContain(s.id);
    }

    const story = (await memory.skills.explain(victim.name))!;
    expect(story.skill.status).toBe('retired');
    expect(story.parents.sessions.map((p) => p.id).sort()).toEqual([...victim.sourceSessions].sort());
    expect(story.parents.sessions.every((p) => p.outcome === 'success' && p.goal.length > 0)).toBe(true);
    expect(story.trials.length).toBe(after!.trialsAttempted);
    // It started from the eta its evidence gave it (the Beta posterior over the sessions that followed it), and
    // went into its trials with the eta the evidence of the whole pass gave it (another group reinforced it there).
    expect(story.track[0]!.signal).toBe('created');
    const beforeTrials = story.track.filter((t) => t.signal === 'created' || t.signal === 'reinforced');
    expect(beforeTrials.at(-1)!.eta).toBe((victim.successCount + 1) / (victim.attemptCount + 2));
    expect(story.track.slice(0, beforeTrials.length)).toEqual(beforeTrials);
    expect(story.track[story.track.length - 1]).toMatchObject({ status: 'retired' });
    expect(story.versions.map((v) => v.version)).toContain('1.0.0');
  });

  it('credits a trial once per session, and applies nothing for an unknown outcome', async () => {
    const memory = await learnedMemory();
    const [skill] = await memory.skills.list();
    const goal = (await memory.parts.store!.getSession('default', skill.sourceSessions[0]))!.goal;
    const s = await memory.startSession({ goal, id: 'once' });
    await s.recall();
    await s.recall();
    await s.end('success');
    expect((await memory.skills.get(skill.id))!.trialsAttempted).toBe(1);
    expect((await memory.reportOutcome('once', 'success')).credited).toEqual([]);
    const u = await memory.startSession({ goal, id: 'unknown' });
    await u.recall();
    await u.end('unknown');
    expect((await memory.skills.get(skill.id))!.trialsAttempted).toBe(1);
    // The truth, reported later, counts.
    expect((await memory.reportOutcome('unknown', 'failure')).credited).toEqual([skill.name]);
    expect((await memory.skills.get(skill.id))!.trialsAttempted).toBe(2);
  });
});

describe('the track record explain gives', () => {
  it('keeps the eta a skill started with, and shows each pass that brought it sessions, with the support after it', async () => {
    const memory = await openMemory({ db: tempDbPath(), config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    const refunds = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...orderSession(from + i, 'Refund order # to the original payment method', [
          'get_order_details',
          'refund_order',
        ]),
        id: `refund-${from + i}`,
      }));
    await memory.ingest(refunds(0, 6));
    await memory.synthesize();
    const [skill] = await memory.skills.list();
    const started = skill!.eta;
    await memory.ingest(refunds(10, 4));
    expect((await memory.synthesize()).reinforced).toHaveLength(1);
    const grown = (await memory.skills.get(skill!.id))!;
    expect(grown.eta).not.toBe(started);
    await memory.feedback(skill!.name, 'up');
    const { track } = (await memory.skills.explain(skill!.name))!;
    // Before: the first row showed today's eta, and the reinforcement was nowhere.
    expect(track.map((t) => [t.signal, t.eta, t.support])).toEqual([
      ['created', started, undefined],
      ['reinforced', grown.eta, 10],
      ['user.positive', expect.any(Number), undefined],
    ]);
    expect(track[1]).toMatchObject({ status: 'probationary', utility: 0 });
    await memory.close();
  });
});

describe('feedback', () => {
  it('moves eta and status, writes a feedback row, an audit record and events, and rejects bad input', async () => {
    const memory = await learnedMemory();
    const [skill] = await memory.skills.list();
    const events: BusEvent[] = [];
    memory.on('*', (e) => void events.push(e));
    const up = await memory.feedback(skill.name, 'up');
    expect(up.after.eta).toBeCloseTo(Math.min(1, skill.eta + 0.1));
    await memory.feedback(skill.name, 'reward=1');
    expect((await memory.skills.get(skill.id))!.utility).toBeCloseTo(0.2);
    // Thumbs down, 0.1 each, until eta falls below retireEta (how many depends on the eta its evidence gave it).
    const start = (await memory.skills.get(skill.id))!.eta;
    const downs = Math.floor((start - 0.25) / 0.1 + 1e-9) + 1;
    for (let i = 0; i < downs; i++) await memory.feedback(skill.name, 'down');
    const down = (await memory.skills.get(skill.id))!;
    expect(down.status).toBe('retired');
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['skill.eta_changed', 'skill.status_changed', 'skill.retired']),
    );
    expect((await memory.parts.store!.feedbackHistory(skill.id)).length).toBe(2 + downs);
    await expect(memory.feedback(skill.name, 'reward=3')).rejects.toThrow(/\[0,1\]/);
    await expect(memory.feedback('no-such-skill', 'up')).rejects.toThrow(/no skill/);
    // Back from retirement on a positive signal.
    for (let i = 0; i < 3; i++) await memory.feedback(skill.name, 'up');
    expect((await memory.skills.get(skill.id))!.status).toBe('probationary');
  });
});

describe('explicit compile', () => {
  it('a dry run writes nothing; a commit writes exactly one skill; a second commit reinforces the duplicate', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db });
    const records = readTau(TAU_DEV).filter((r) => r.meta.family === 'retail:return_items' && r.success);
    await memory.ingest(records.map((r) => toSession(r)));
    const ids = records.slice(0, 2).map((r) => r.session_id);
    // Two sessions that did return the items: a procedure keeps only the steps its sessions share, so the skill
    // is compiled from two of them (ids[0]'s return call failed and it handed the user over: another procedure).
    const returned = records
      .filter((r) => r.steps.some((s) => s.tool === 'return_delivered_order_items' && s.ok))
      .slice(0, 2)
      .map((r) => r.session_id);
    expect(returned[0]).toBe(ids[1]);
    const counts = () => {
      const raw = new Database(db, { readonly: true });
      const row = Object.fromEntries(
        ['skills', 'provenance', 'skill_versions', 'audit', 'events'].map((t) => [
          t,
          (raw.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n,
        ]),
      );
      raw.close();
      return row;
    };
    const before = counts();
    const dry = await memory.skills.compile({ sessions: returned });
    expect(dry.dryRun).toBe(true);
    expect(dry.action).toBe('add');
    expect(dry.skillMd).toMatch(/^---\nname: /);
    expect(dry.parents.sessions.map((p) => p.id).sort()).toEqual([...returned].sort());
    expect(counts()).toEqual(before);

    const committed = await memory.skills.compile({ sessions: returned, commit: true });
    expect(committed.action).toBe('add');
    expect((await memory.skills.list()).map((s) => s.name)).toEqual([committed.skill!.name]);
    expect(counts().skills).toBe(before.skills + 1);

    // Compiling one of those sessions again is the same skill: it is reinforced, not duplicated. (The other one
    // alone is another procedure: its return call failed and the agent handed the user over, an escalation.)
    const escalation = await memory.skills.compile({ sessions: [ids[0]] });
    expect(escalation.action).toBe('add');
    expect(escalation.skillMd).toMatch(/^name: escalate-/m);
    expect(escalation.skillMd).toMatch(/^ {2}tools-required: .*transfer_to_human_agents$/m);
    const single = await memory.skills.compile({ sessions: [ids[1]] });
    expect(single.action).toBe('reinforce');
    expect(single.duplicateOf?.name).toBe(committed.skill!.name);
    const again = await memory.skills.compile({ sessions: [ids[1]], commit: true });
    expect(again.action).toBe('reinforce');
    expect((await memory.skills.list()).length).toBe(1);
    expect(counts().skills).toBe(before.skills + 1);
  });

  it('keeps the deny rules: a session holding a secret in its arguments is not material', async () => {
    const memory = await openMemory({ db: tempDbPath() });
    const r = readTau(TAU_DEV).find((x) => x.success && x.steps.length >= 3)!;
    const s = toSession(r);
    s.calls[0].args = { api_key: 'sk-proj-Abc123def456GHI789jkl012MNO345pqr' };
    await memory.ingest([s]);
    const res = await memory.skills.compile({ sessions: [s.id], commit: true });
    expect(res.action).toBe('skip');
    expect(res.reason).toMatch(/not admitted/);
    expect(await memory.skills.list()).toEqual([]);
  });

  it('compiles from a cue (the cluster it names) and from facts alone (a heuristic skill with semantic parents)', async () => {
    const memory = await learnedMemory();
    const [skill] = await memory.skills.list();
    const goal = (await memory.parts.store!.getSession('default', skill.sourceSessions[0]))!.goal;
    const byCue = await memory.skills.compile({ cue: goal });
    expect(byCue.duplicateOf?.id).toBe(skill.id);
    await expect(memory.skills.compile({ cue: 'write a haiku about autumn' })).rejects.toThrow(
      /no group of stored sessions matches the cue .*grouped by the next one/,
    );
    // Before any pass there is no group to match: said so, with what to do.
    const fresh = await openMemory({ db: tempDbPath(), logLevel: 'silent' });
    await fresh.ingest([(await memory.parts.store!.getSession('default', skill.sourceSessions[0]))!]);
    await expect(fresh.skills.compile({ cue: goal })).rejects.toThrow(
      /no synthesis pass has grouped the stored sessions yet.*run one \(synthesize\)/,
    );
    await fresh.close();

    const f1 = await memory.facts.add(
      'Refunds go to the original payment method unless the customer asks for a gift card.',
    );
    const f2 = await memory.facts.add('Only delivered orders can be returned; pending orders are cancelled instead.');
    const facts = await memory.skills.compile({
      cue: 'returns and refunds policy',
      facts: [f1.id, f2.id],
      commit: true,
    });
    expect(facts.action).toBe('add');
    const stored = (await memory.skills.get(facts.skill!.id))!;
    expect(stored.kind).toBe('heuristic');
    const prov = await memory.parts.store!.provenance(stored.id);
    expect(prov.map((p) => p.sourceKind)).toEqual(['semantic', 'semantic']);
    expect((await memory.skills.explain(stored.id))!.parents.facts.map((f) => f.id).sort()).toEqual(
      [f1.id, f2.id].sort(),
    );
  });

  it('goes through the same pipeline as the synthesis pass: the same distiller, the same single write path', async () => {
    const calls: string[] = [];
    const inner = new HeuristicDistiller({
      requiredSupport: 0.5,
      conditionalSupport: 0.25,
      thinkTools: ['think'],
      redact: redactText,
    });
    const spy: Distiller = {
      id: inner.id,
      distil: (input: DistillInput) => {
        calls.push(input.clusterId);
        return inner.distil(input);
      },
    };
    const memory = await openMemory({ db: tempDbPath(), distiller: spy });
    const records = readTau(TAU_DEV);
    await memory.ingest(records.map((r) => toSession(r)));
    const pass = await memory.synthesize();
    const passCalls = calls.length;
    // A group parted by the tools its agents held (tau2 telecom) is distilled twice, its procedure and its branch's:
    // one draft of one cluster.
    const fromPass = new Set(calls).size;
    expect(passCalls).toBeGreaterThan(fromPass);
    // Every draft of the pass ends as a new skill, a consolidation into one (reinforce, update, supersede) or a skip.
    // The branch stage's updates (a skill rewritten with the branches its lookups showed) are no draft: in a first
    // pass they rewrite skills the pass created, which the report names once, as created.
    const branched = (await memory.parts.store!.audit('default', { limit: 1000 })).filter(
      (a) => a.action === 'skill.update' && a.detail.reason === 'branches on what a shared lookup shows',
    ).length;
    expect(branched).toBeGreaterThan(0);
    const decided = pass.created.length + pass.reinforced.length + pass.updated.length + pass.superseded.length;
    expect(fromPass).toBe(decided + pass.skipped.filter((s) => /verification|SKIP/.test(s.reason)).length);
    // A task kind with a single success in the traces: nothing learned it, so the compile adds a skill.
    const r = records.find((x) => x.meta.family === 'airline:update_passengers' && x.success)!;
    await memory.skills.compile({ sessions: [r.session_id], commit: true });
    expect(calls.length).toBe(passCalls + 1);
    expect(calls[calls.length - 1]).toBe('compile');
    const audits = await memory.parts.store!.audit('default', { limit: 1000 });
    const adds = audits.filter((a) => a.action === 'skill.add');
    expect(new Set(adds.map((a) => a.actor))).toEqual(new Set(['synthesis', 'compile']));
    expect(new Set(adds.map((a) => JSON.stringify(Object.keys(a.detail).sort())))).toHaveProperty('size', 1);
  });
});

describe('events and audit', () => {
  it('a listener that throws does not stop a synthesis pass, and the failure is logged', async () => {
    const lines: string[] = [];
    const memory = await openMemory({
      db: tempDbPath(),
      logger: createLogger('warn', 'skillsmith', (l) => void lines.push(l)),
    });
    let seen = 0;
    memory.on('skill.created', () => {
      seen++;
      throw new Error('listener bug');
    });
    memory.on('skill.created', async () => {
      throw new Error('async listener bug');
    });
    await memory.ingest(readTau(TAU_DEV).map((r) => toSession(r)));
    const report = await memory.synthesize();
    expect(report.created.length).toBeGreaterThan(0);
    // A draft that superseded a skill of the same pass is a new skill too (created event, listed as superseding).
    expect(seen).toBe(report.created.length + report.superseded.length);
    expect((await memory.skills.list()).length).toBe(report.created.length);
    await new Promise((r) => setImmediate(r));
    const failures = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'event listener failed');
    expect(failures.map((f) => f.error)).toEqual(
      expect.arrayContaining(['Error: listener bug', 'Error: async listener bug']),
    );
  });

  it('keeps an append-only JSONL audit file that no command truncates', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db });
    await memory.ingest(readTau(TAU_DEV).map((r) => toSession(r)));
    await memory.synthesize();
    const file = `${db}.audit.jsonl`;
    expect(existsSync(file)).toBe(true);
    const lines = () => readFileSync(file, 'utf8').trim().split('\n');
    const first = lines();
    const [skill] = await memory.skills.list();
    await memory.skills.setEnabled(skill.name, false);
    await memory.skills.setEnabled(skill.name, true);
    await memory.feedback(skill.name, 'up');
    await memory.synthesize();
    await memory.close();
    const reopened = await openMemory({ db });
    await reopened.feedback(skill.name, 'down');
    await reopened.close();
    const all = lines();
    expect(all.slice(0, first.length)).toEqual(first);
    const raw = new Database(db, { readonly: true });
    const rows = (raw.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;
    raw.close();
    expect(all.length).toBe(rows);
    expect(all.map((l) => JSON.parse(l).action)).toEqual(
      expect.arrayContaining(['skill.add', 'skill.disable', 'skill.enable', 'skill.feedback']),
    );
  });
});

describe('synthesis cadence', () => {
  it('runs the pass by itself after N new sessions, off the hot path', async () => {
    const memory = await openMemory({ db: tempDbPath(), config: { synthesis: { auto: { afterSessions: 50 } } } });
    const sessions = readTau(TAU_DEV).map((r) => toSession(r));
    await memory.ingest(sessions.slice(0, 40));
    await memory.synthesis.idle();
    expect(await memory.skills.list()).toEqual([]);
    await memory.ingest(sessions.slice(40));
    // ingest returned before the pass ran; the pass completes in the background.
    await memory.synthesis.idle();
    expect((await memory.skills.list()).length).toBeGreaterThan(0);
    await memory.close();
  });

  it('runs once on first use when configured', async () => {
    const db = tempDbPath();
    const setup = await openMemory({ db });
    await setup.ingest(readTau(TAU_DEV).map((r) => toSession(r)));
    await setup.close();
    const memory = await openMemory({ db, config: { synthesis: { auto: { onFirstUse: true } } } });
    expect(await memory.recall('my phone has no service')).toEqual([]);
    await memory.synthesis.idle();
    expect((await memory.skills.list()).length).toBeGreaterThan(0);
    await memory.close();
  });
});

async function learnedMemory() {
  const memory = await openMemory({ db: tempDbPath() });
  await memory.ingest(readTau(TAU_DEV).map((r) => toSession(r)));
  await memory.synthesize();
  return memory;
}
