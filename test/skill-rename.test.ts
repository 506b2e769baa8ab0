import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { HEURISTIC_DISTILLER_ID } from '../src/distillers/heuristic-distiller.js';
import { validateSkillMd } from '../src/domain/skill-md/index.js';
import type { Session } from '../src/domain/types.js';
import { ConflictError, InputError, PassLockedError } from '../src/errors/index.js';
import { runCli } from './support/surfaces.js';
import { orderSession } from './support/capture.js';
import { readTau, SAMPLE, TAU_DEV, tempDbPath, toSession } from './support/tau.js';

const HELD_BACK = new URL('../examples/tau-held-back.jsonl', import.meta.url).pathname;

const config = { synthesis: { cooldownMs: 0, minSteps: 2 } };

/** Refund run `i`: the order is looked up, then refunded; every call succeeds, and so does the run unless told. */
function refund(i: number, tools = ['get_order_details', 'refund_order'], outcome: 'success' | 'failure' = 'success') {
  return { ...orderSession(i, 'Refund order # to the original payment method', tools, outcome), id: `refund-${i}` };
}

/** Cancellation run `i`: a second kind of task, for a second skill beside the refunds. */
function cancel(i: number): Session {
  return {
    ...orderSession(20 + i, 'Cancel my pending order # please', ['get_order_details', 'cancel_order']),
    id: `cancel-${i}`,
  };
}

/** A memory that learned one skill from six refunds. */
async function learnedRefund(db = tempDbPath()): Promise<{ memory: Memory; name: string; id: string; db: string }> {
  const memory = await openMemory({ db, config, logLevel: 'silent' });
  await memory.ingest(Array.from({ length: 6 }, (_, i) => refund(i)));
  await memory.synthesize();
  const [skill] = await memory.skills.list();
  return { memory, name: skill!.name, id: skill!.id, db };
}

/** A memory that learned two skills: the refunds' and, beside it, the cancellations' (`other`). */
async function learnedRefundAndCancel() {
  const learned = await learnedRefund();
  await learned.memory.ingest(Array.from({ length: 6 }, (_, i) => cancel(i)));
  await learned.memory.synthesize();
  const other = (await learned.memory.skills.list()).find((s) => s.id !== learned.id)!;
  return { ...learned, other };
}

describe('a learned skill renamed', () => {
  it('is a new version under the new name, said in its title and description; its record and lineage stay', async () => {
    const { memory, name, id } = await learnedRefund();
    await memory.feedback(name, 'pass');
    const before = (await memory.skills.get(id))!;
    const res = await memory.skills.rename(name, 'refund-to-card', { actor: 'user' });
    expect(res!.from).toBe(name);
    const after = res!.skill;
    expect(after).toMatchObject({
      id,
      name: 'refund-to-card',
      version: '1.1.0',
      eta: before.eta,
      trialsAttempted: before.trialsAttempted,
      sourceSessions: before.sourceSessions,
      toolSequence: before.toolSequence,
    });
    expect(after.description).toMatch(/^Refund To Card: /);
    expect(after.body.split('\n')[0]).toBe('# Refund To Card');
    // The text below the title is the one it had.
    expect(after.body.split('\n').slice(1)).toEqual(before.body.split('\n').slice(1));
    expect(after.skillMd).toMatch(/^ {2}named-by: user$/m);
    expect(validateSkillMd(after.skillMd, { dirName: 'refund-to-card' }).errors).toEqual([]);

    expect(after.skillMd).toMatch(new RegExp(`^ {2}renamed-from: ${name}$`, 'm'));
    expect(await memory.skills.get(name)).toBeNull();
    // A lookup by the name it had says what it is called now.
    expect(await memory.skills.nowKnownAs(name)).toEqual({ name: 'refund-to-card', how: 'renamed' });
    expect(await memory.skills.nowKnownAs('refund-to-card')).toBeNull();
    await expect(memory.feedback(name, 'up')).rejects.toThrow(
      `no skill named "${name}": it was renamed refund-to-card`,
    );
    const ex = (await memory.skills.explain('refund-to-card'))!;
    expect(ex.versions.map((v) => [v.version, v.reason])).toEqual([
      ['1.0.0', 'add'],
      ['1.1.0', 'rename'],
    ]);
    const diff = (await memory.skills.diff('refund-to-card'))!;
    // Each side under the name it had; a rename keeps the procedure.
    expect([diff.from!.name, diff.to.name]).toEqual([name, 'refund-to-card']);
    expect(diff.to).toMatchObject({ reason: 'rename', sameProcedure: true });
    const changed = diff.hunks.flatMap((h) => h.lines).filter((l) => l.op !== ' ');
    expect(changed.map((l) => `${l.op}${l.text}`)).toEqual(
      expect.arrayContaining([`-name: ${name}`, '+name: refund-to-card', '+# Refund To Card', '+  named-by: user']),
    );
    const events = await memory.events.list();
    expect(events.at(-1)).toMatchObject({
      type: 'skill.renamed',
      skillId: id,
      payload: expect.objectContaining({ name: 'refund-to-card', from: name, to: 'refund-to-card' }),
    });
    // Recalled, and exported, under the new name.
    const recalled = await memory.recall('Refund order #W2000 to the original payment method');
    expect(recalled.map((s) => s.name)).toEqual(['refund-to-card']);
    const out = mkdtempSync(join(tmpdir(), 'skillsmith-rename-export-'));
    await memory.skills.export(out);
    expect(readFileSync(join(out, 'refund-to-card', 'SKILL.md'), 'utf8')).toContain('name: refund-to-card');
    await memory.close();
  });

  it('exported again after a rename: the folder of its old name goes, unless someone edited it', async () => {
    const { memory, name } = await learnedRefund();
    const out = mkdtempSync(join(tmpdir(), 'skillsmith-rename-export-'));
    await memory.skills.export(out);
    // Four more runs of the same procedure reinforce it: its version's text now counts ten sessions, not six.
    await memory.ingest(Array.from({ length: 4 }, (_, i) => refund(70 + i)));
    const reinforced = await memory.synthesize();
    expect(reinforced.reinforced).toHaveLength(1);
    expect(readFileSync(join(out, name, 'SKILL.md'), 'utf8')).toContain('Learned from 6 successful sessions');
    // A folder that is not an export of this memory's, and one of another skill, stay as they are.
    mkdirSync(join(out, 'notes'));
    writeFileSync(join(out, 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Mine.\n---\n\n# Notes\n');
    await memory.skills.rename(name, 'refund-to-card');
    const again = await memory.skills.export(out);
    expect(again.written.map((w) => w.name)).toEqual(['refund-to-card']);
    expect(again.stale).toEqual([{ name, path: join(out, name), now: 'refund-to-card', removed: true }]);
    expect(readdirSync(out).sort()).toEqual(['notes', 'refund-to-card']);
    // Edited since it was written: said, and left.
    await memory.skills.rename('refund-to-card', 'refund-money');
    const edited = join(out, 'refund-to-card', 'SKILL.md');
    writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nMy own note.\n`);
    const third = await memory.skills.export(out);
    expect(third.stale).toEqual([
      { name: 'refund-to-card', path: join(out, 'refund-to-card'), now: 'refund-money', removed: false },
    ]);
    expect(readdirSync(out).sort()).toEqual(['notes', 'refund-money', 'refund-to-card']);
    await memory.close();
  });

  it('is refused, with the reason, for a name it cannot take; nothing changes', async () => {
    const { memory, name, id, other } = await learnedRefundAndCancel();
    await expect(memory.skills.rename(name, other.name)).rejects.toThrow(ConflictError);
    await expect(memory.skills.rename(name, other.name)).rejects.toThrow(`another live skill is named ${other.name}`);
    await expect(memory.skills.rename(name, 'Refund Card')).rejects.toThrow(InputError);
    await expect(memory.skills.rename(name, 'refund--card')).rejects.toThrow('must not contain "--"');
    await expect(memory.skills.rename(name, 'x'.repeat(65))).rejects.toThrow('at most 64 characters');
    expect(await memory.skills.rename('no-such-skill', 'anything')).toBeNull();
    // An imported skill keeps the name its folder gives it.
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-rename-import-'));
    mkdirSync(join(dir, 'brew-tea'));
    writeFileSync(
      join(dir, 'brew-tea', 'SKILL.md'),
      '---\nname: brew-tea\ndescription: Brew a pot of tea.\n---\n\n# Brew Tea\n\n1. Boil water.\n2. Steep.\n',
    );
    await memory.skills.import(dir);
    await expect(memory.skills.rename('brew-tea', 'make-tea')).rejects.toThrow('imported skill keeps the name');
    expect((await memory.skills.get(id))!).toMatchObject({ name, version: '1.0.0' });
    expect((await memory.skills.list({ corpus: 'external' })).map((s) => s.name)).toEqual(['brew-tea']);
    await memory.close();
  });

  it('two renames at once both land; a pass that holds the namespace refuses one, saying so', async () => {
    const { memory, name, db, other } = await learnedRefundAndCancel();
    // Two processes, as two commands run at once would be.
    const second = await openMemory({ db, config, logLevel: 'silent' });
    const both = await Promise.all([
      memory.skills.rename(name, 'refund-to-card'),
      second.skills.rename(other.name, 'cancel-before-shipping'),
    ]);
    expect(both.map((r) => r!.skill.name)).toEqual(['refund-to-card', 'cancel-before-shipping']);
    // A holder that keeps the namespace (a pass) for longer than a change waits: refused, with the reason.
    const release = await memory.parts.store!.tryLock('synthesis:default', 'a-pass', 60_000);
    await expect(second.skills.rename('refund-to-card', 'refund-order-card')).rejects.toThrow(PassLockedError);
    await release!();
    expect((await second.skills.rename('refund-to-card', 'refund-order-card'))!.skill.name).toBe('refund-order-card');
    await second.close();
    await memory.close();
  });

  it('asked again, changes nothing; a name another skill had before a rename is taken only when forced', async () => {
    const { memory, name, id, other } = await learnedRefundAndCancel();
    // Its own name, and a rename retried after it landed (an answer lost on the way): the same skill, no new version.
    expect(await memory.skills.rename(name, name)).toMatchObject({ changed: false, skill: { name, version: '1.0.0' } });
    expect((await memory.skills.rename(name, 'refund-to-card'))!.changed).toBe(true);
    expect(await memory.skills.rename(name, 'refund-to-card')).toMatchObject({
      from: name,
      changed: false,
      skill: { id, name: 'refund-to-card', version: '1.1.0' },
    });
    expect(await memory.skills.rename(name, 'something-else')).toBeNull();
    // The old name: a lookup by it reaches the renamed skill's answer, so another skill takes it only when forced.
    await expect(memory.skills.rename(other.name, name)).rejects.toThrow(
      `${name} was the name of refund-to-card until it was renamed`,
    );
    expect((await memory.skills.get(other.id))!.name).toBe(other.name);
    expect(await memory.skills.rename(other.name, name, { force: true })).toMatchObject({
      changed: true,
      skill: { id: other.id, name },
    });
    expect(await memory.skills.nowKnownAs(name)).toBeNull();
    await memory.close();
  });

  it('keeps its name when its group grows and a pass writes it again', async () => {
    const { memory, name, id } = await learnedRefund();
    await memory.skills.rename(name, 'refund-to-card');
    // Ten more runs, which check the payment method before the refund: the procedure itself changes.
    await memory.ingest(
      Array.from({ length: 10 }, (_, i) => refund(40 + i, ['get_order_details', 'get_payment_method', 'refund_order'])),
    );
    const report = await memory.synthesize();
    expect(report.updated.map((s) => s.id)).toEqual([id]);
    expect(report.created).toEqual([]);
    const skill = (await memory.skills.get(id))!;
    expect(skill.name).toBe('refund-to-card');
    expect(skill.toolSequence).toContain('get_payment_method');
    expect(skill.sourceSessions).toHaveLength(16);
    expect(skill.body).toMatch(/^# Refund To Card\n\nLearned from 16 successful sessions/);
    expect(skill.description).toMatch(/^Refund To Card: /);
    expect(skill.skillMd).toMatch(/^ {2}named-by: user$/m);
    expect(await memory.skills.get(name)).toBeNull();
    await memory.close();
  });

  it('gives its name to the better procedure of its group that supersedes it', async () => {
    const memory = await openMemory({ db: tempDbPath(), config, logLevel: 'silent' });
    // Six of ten runs of the short procedure succeeded; then fourteen of a longer one, all of them.
    await memory.ingest([
      ...Array.from({ length: 6 }, (_, i) => refund(i)),
      ...Array.from({ length: 4 }, (_, i) => refund(10 + i, undefined, 'failure')),
    ]);
    await memory.synthesize();
    const [first] = await memory.skills.list();
    await memory.skills.rename(first!.name, 'refund-to-card');
    await memory.ingest(
      Array.from({ length: 14 }, (_, i) =>
        refund(40 + i, ['get_order_details', 'get_payment_method', 'check_refund_policy', 'refund_order']),
      ),
    );
    const report = await memory.synthesize();
    expect(report.superseded.map((s) => s.supersedes)).toEqual([first!.id]);
    const [next] = await memory.skills.list();
    expect(next).toMatchObject({ name: 'refund-to-card', version: '2.0.0' });
    expect(next!.toolSequence).toContain('check_refund_policy');
    expect(next!.body.split('\n')[0]).toBe('# Refund To Card');
    expect(next!.description).toMatch(/^Refund To Card: /);
    expect(next!.skillMd).toMatch(/^ {2}named-by: user$/m);
    await memory.close();
  });

  it('stays its own skill when more sessions come: no other procedure takes its name or folds it away', async () => {
    const memory = await openMemory({ db: tempDbPath(), config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    await memory.ingest(readTau(SAMPLE).map((r) => toSession(r)));
    await memory.synthesize();
    const escalate = (await memory.skills.get('escalate-order-return'))!;
    const returns = (await memory.skills.get('return-delivered-order-items'))!;
    await memory.skills.rename('escalate-order-return', 'escalate-return-request');
    await memory.ingest([...readTau(TAU_DEV), ...readTau(HELD_BACK)].map((r) => toSession(r)));
    await memory.synthesize();
    // Before: the larger return skill absorbed the escalation and took its name, at the same version.
    const named = (await memory.skills.get('escalate-return-request'))!;
    expect(named).toMatchObject({ id: escalate.id, supersededBy: null });
    expect(named.toolSequence.at(-1)).toBe('transfer_to_human_agents');
    expect((await memory.skills.get(returns.id))!).toMatchObject({ name: 'return-delivered-order-items' });
    await memory.close();
  });

  it('leaves the name it had to it: a new group learned later is named otherwise, and the old name still finds it', async () => {
    const { memory, name, id } = await learnedRefund();
    await memory.skills.rename(name, 'refund-to-card');
    // Six refunds asked for in other words, by another procedure: a second skill, which the distiller would call
    // by the refunds' first name.
    await memory.ingest(
      Array.from({ length: 6 }, (_, i) => ({
        ...orderSession(60 + i, 'Give the money back for order #', [
          'get_order_details',
          'refund_order',
          'notify_customer',
        ]),
        id: `money-back-${i}`,
      })),
    );
    const report = await memory.synthesize();
    expect(report.created).toHaveLength(1);
    const [created] = report.created;
    expect(created!.name).not.toBe(name);
    expect(created!.name).toMatch(/^refund-order-/);
    expect(await memory.skills.get(name)).toBeNull();
    expect(await memory.skills.nowKnownAs(name)).toEqual({ name: 'refund-to-card', how: 'renamed' });
    expect((await memory.skills.get('refund-to-card'))!.id).toBe(id);
    await memory.close();
  });

  it('keeps its name when a newer distiller writes it again', async () => {
    const { memory, name, id, db } = await learnedRefund();
    await memory.skills.rename(name, 'refund-to-card');
    const renamed = (await memory.skills.get(id))!;
    await memory.close();
    // What an earlier release of the distiller left: the same skill, its text written by heuristic@1.
    const raw = new Database(db);
    raw
      .prepare('UPDATE skills SET skill_md = ? WHERE id = ?')
      .run(renamed.skillMd.replace(`learned-by: ${HEURISTIC_DISTILLER_ID}`, 'learned-by: heuristic@1'), id);
    raw.close();
    const upgraded = await openMemory({ db, config, logLevel: 'silent' });
    const report = await upgraded.synthesize();
    // Without the given name, the distiller's own name would have superseded it (a new skill, its lineage kept).
    expect(report.superseded).toEqual([]);
    expect(report.updated.map((s) => s.id)).toEqual([id]);
    const skill = (await upgraded.skills.get(id))!;
    expect(skill).toMatchObject({ name: 'refund-to-card', supersededBy: null });
    expect(skill.skillMd).toContain(`learned-by: ${HEURISTIC_DISTILLER_ID}`);
    expect(skill.skillMd).toMatch(/^ {2}named-by: user$/m);
    expect(skill.body.split('\n')[0]).toBe('# Refund To Card');
    await upgraded.close();
  });

  it('a lookup by the name of a skill another superseded says which skill does its task now', async () => {
    const { memory, name, id, db } = await learnedRefund();
    const skill = (await memory.skills.get(id))!;
    await memory.close();
    // An earlier release named it otherwise: this release's name supersedes it.
    const raw = new Database(db);
    raw
      .prepare('UPDATE skills SET name = ?, skill_md = ? WHERE id = ?')
      .run(
        'refund-payment-method',
        skill.skillMd
          .replace(`learned-by: ${HEURISTIC_DISTILLER_ID}`, 'learned-by: heuristic@1')
          .replace(`name: ${name}`, 'name: refund-payment-method'),
        id,
      );
    raw.close();
    // The pass says which skill it superseded by its name, not its id.
    const pass = runCli(['synthesize', '--db', db], tmpdir());
    expect(pass.stdout).toContain(`\n  superseded refund-payment-method 1.0.0 by ${name} 2.0.0\n`);
    const upgraded = await openMemory({ db, config, logLevel: 'silent' });
    expect((await upgraded.skills.get('refund-payment-method'))!.supersededBy).not.toBeNull();
    expect(await upgraded.skills.nowKnownAs('refund-payment-method')).toEqual({ name, how: 'superseded' });
    expect(await upgraded.skills.nowKnownAs('no-such-skill')).toBeNull();
    // A name given and then superseded: the lookup follows the chain to the skill that is live now.
    await upgraded.skills.rename(name, 'refund-to-card');
    expect(await upgraded.skills.nowKnownAs(name)).toEqual({ name: 'refund-to-card', how: 'renamed' });
    await upgraded.close();
    // Shown, as the skill it was, with the one that does its task now.
    const shown = runCli(['skills', 'show', 'refund-payment-method', '--db', db], tmpdir());
    expect(shown.stdout).toContain(
      'superseded by refund-to-card 2.1.0: it is not recalled (skills show refund-to-card)\n',
    );
  });

  it('from the command line: said in words or as JSON; a bad name exits 1 and a missing one is a usage error', async () => {
    const { memory, name, db } = await learnedRefund();
    await memory.ingest(Array.from({ length: 3 }, (_, i) => refund(60 + i)));
    await memory.close();
    // A pass right after the one that learned it (the default cooldown is a minute) says when to ask again.
    expect(runCli(['synthesize', '--db', db], tmpdir()).stdout).toContain(
      '  skipped cluster c000001: distilled less than 60 s ago (synthesis.cooldownMs); run synthesize again after that to examine it\n',
    );
    const text = runCli(['skills', 'rename', name, 'refund-to-card', '--db', db], tmpdir());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${name} renamed refund-to-card (version 1.1.0)`);
    const json = runCli(['skills', 'rename', 'refund-to-card', 'refund-order-payment', '--db', db, '--json'], tmpdir());
    expect(JSON.parse(json.stdout)).toMatchObject({
      from: 'refund-to-card',
      skill: { name: 'refund-order-payment', version: '1.2.0' },
    });
    // Its names so far, the latest first; a lookup by either says what it is called now.
    const shown = runCli(['skills', 'show', 'refund-order-payment', '--db', db], tmpdir());
    expect(shown.stdout).toContain(`  renamed-from: refund-to-card ${name}\n`);
    const old = runCli(['skills', 'show', name, '--db', db], tmpdir());
    expect(old.code).toBe(1);
    expect(old.stderr).toBe(`skillsmith: no skill named "${name}": it was renamed refund-order-payment\n`);
    const bad = runCli(['skills', 'rename', 'refund-order-payment', 'Refund', '--db', db], tmpdir());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rename refund-order-payment to "Refund": must be lowercase ASCII letters');
    const missing = runCli(['skills', 'rename', 'refund-order-payment', '--db', db], tmpdir());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage: skillsmith skills rename NAME NEW');
    const unknown = runCli(['skills', 'rename', 'no-such-skill', 'other', '--db', db], tmpdir());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no skill named "no-such-skill"');
    // Its first name taken back is its name again, not a former one.
    expect(runCli(['skills', 'rename', 'refund-order-payment', name, '--db', db], tmpdir()).code).toBe(0);
    expect(runCli(['skills', 'show', name, '--db', db], tmpdir()).stdout).toContain(
      '  renamed-from: refund-order-payment refund-to-card\n',
    );
  });
});
