// A person corrects a learned skill (skills edit) and the correction holds: a new version of the same skill that
// recall serves, that trials judge by, that later passes keep (saying when the sessions suggest otherwise), until
// it is handed back to the learner. Through the library, the built CLI (a file, stdin, an editor) and REST.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEURISTIC_DISTILLER_ID } from '../src/distillers/heuristic-distiller.js';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/app/open-memory.js';
import { validateSkillMd } from '../src/domain/skill-md/index.js';
import type { Session } from '../src/domain/types.js';
import { ConflictError, InputError } from '../src/errors/index.js';
import { serveApi, type RunningServer } from '../src/surfaces/http/server.js';
import { runBuiltCli } from './support/built-cli.js';
import { orderSession } from './support/capture.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE, tempDbPath } from './support/tau.js';

const config = { synthesis: { cooldownMs: 0, minSteps: 2 } };
const HELD_BACK = new URL('../examples/tau-held-back.jsonl', import.meta.url).pathname;
const LEARNED = ['get_order_details', 'get_customer', 'refund_order'];

/** Refund run `i`: the order and the customer are looked up, then the order refunded (unless told other tools). */
function refund(i: number, tools = LEARNED): Session {
  return { ...orderSession(i, 'Refund order # to the original payment method', tools), id: `refund-${i}` };
}

/** A memory (SQLite by default) that learned one skill from six refunds. */
async function learnedRefund(db: string = tempDbPath()) {
  const memory = await openMemory({ db, config, logLevel: 'silent', auditFile: null });
  await memory.ingest(Array.from({ length: 6 }, (_, i) => refund(i)));
  await memory.synthesize();
  const [skill] = await memory.skills.list();
  return { memory, skill: skill! };
}

/** The skill's SKILL.md with its customer lookup replaced by a payment-method lookup, and a warning added. */
function corrected(skillMd: string): string {
  const text = skillMd
    .replace(/^(\d+)\. Call `get_customer`.*$/m, '$1. Call `get_payment_method` with `order_id` from the user.')
    .replace('## Edge cases\n', '## Edge cases\n\n- Never refund to a gift card: ask for another payment method.\n');
  expect(text).not.toBe(skillMd);
  return text;
}

describe('a learned skill a person edits', () => {
  it('is a new version of the same skill, served by recall with the steps and text the person wrote', async () => {
    const { memory, skill } = await learnedRefund();
    expect(skill.toolSequence).toEqual(LEARNED);
    const res = (await memory.skills.edit(skill.name, corrected(skill.skillMd), { actor: 'user' }))!;
    // A tool none of its sessions called is taken as the person wrote it, and said.
    expect(res).toMatchObject({
      changed: true,
      warnings: [
        `\`get_payment_method\`: no version of ${skill.name} called this tool; recall and trials take the steps as written`,
      ],
      redacted: [],
    });
    const edited = res.skill;
    expect(edited).toMatchObject({ id: skill.id, name: skill.name, version: '1.1.0', eta: skill.eta });
    expect(edited.toolSequence).toEqual(['get_order_details', 'get_payment_method', 'refund_order']);
    expect(edited.body).toContain('Never refund to a gift card');
    expect(edited.skillMd).toMatch(/^ {2}edited-by: user$/m);
    expect(validateSkillMd(edited.skillMd, { dirName: skill.name }).errors).toEqual([]);

    const [hit] = await memory.recall('Refund order #W2000 to the original payment method');
    expect(hit).toMatchObject({ id: skill.id, toolSequence: edited.toolSequence });
    expect(hit!.body).toContain('Never refund to a gift card');
    expect(memory.formatContext([hit!])).toContain('get_payment_method');

    const diff = (await memory.skills.diff(skill.name))!;
    expect(diff.to).toMatchObject({ version: '1.1.0', reason: 'edit', sameProcedure: false });
    const changed = diff.hunks.flatMap((h) => h.lines).filter((l) => l.op !== ' ');
    expect(changed.map((l) => `${l.op}${l.text}`)).toEqual(
      expect.arrayContaining(['+- Never refund to a gift card: ask for another payment method.', '+  edited-by: user']),
    );
    const ex = (await memory.skills.explain(skill.name))!;
    expect(ex.edited).toEqual({ by: 'user', at: edited.updatedAt });
    expect(ex.versions.map((v) => [v.version, v.reason])).toEqual([
      ['1.0.0', 'add'],
      ['1.1.0', 'edit'],
    ]);
    expect((await memory.events.list()).at(-1)).toMatchObject({ type: 'skill.edited', skillId: skill.id });
    await memory.close();
  });

  it("is judged by the person's steps: a session that followed them and succeeded passes its trial", async () => {
    const { memory, skill } = await learnedRefund();
    const follow = async (id: string) => {
      const s = await memory.startSession({ goal: 'Refund order #W3000 to the original payment method', id });
      expect((await s.recall()).map((h) => h.id)).toEqual([skill.id]);
      for (const tool of ['get_order_details', 'get_payment_method', 'refund_order'])
        await s.call({ tool, args: { order_id: '#W3000' }, result: '{"status":"ok"}' });
      await s.end('success');
      return (await memory.skills.get(skill.id))!.trialsAttempted;
    };
    // Before the edit, a run that took the payment-method lookup did not follow the skill: no trial.
    expect(await follow('before-edit')).toBe(0);
    await memory.skills.edit(skill.name, corrected(skill.skillMd));
    expect(await follow('after-edit')).toBe(1);
    expect((await memory.skills.get(skill.id))!.trialsPassed).toBe(1);
    await memory.close();
  });

  it('is kept by later passes, which restate its counts and say when the sessions suggest another procedure', async () => {
    const { memory, skill } = await learnedRefund();
    const edited = (await memory.skills.edit(skill.name, corrected(skill.skillMd)))!.skill;
    // Four more runs of the learned procedure: the sessions still say get_customer.
    await memory.ingest(Array.from({ length: 4 }, (_, i) => refund(20 + i)));
    const report = await memory.synthesize();
    expect(report.updated).toEqual([]);
    expect(report.superseded).toEqual([]);
    expect(report.reinforced).toEqual([
      expect.objectContaining({ id: skill.id, version: '1.1.0', keptEdit: true, suggests: LEARNED }),
    ]);
    const kept = (await memory.skills.get(skill.id))!;
    expect(kept.toolSequence).toEqual(edited.toolSequence);
    expect(kept.body).toContain('Never refund to a gift card');
    expect(kept.body).toContain('Learned from 10 successful sessions');
    expect(kept.sourceSessions).toHaveLength(10);
    expect(kept.skillMd).toMatch(/^ {2}sessions-suggest: get_order_details get_customer refund_order$/m);
    expect((await memory.skills.explain(skill.id))!.edited).toEqual({
      by: 'user',
      at: edited.updatedAt,
      suggests: LEARNED,
    });
    // The person takes the sessions' word on the lookup, keeping the warning: the next pass finds them agreeing.
    await memory.skills.edit(
      skill.name,
      kept.skillMd.replace(/^(\d+)\. Call `get_payment_method`.*$/m, '$1. Call `get_customer` with `order_id`.'),
    );
    await memory.ingest(Array.from({ length: 2 }, (_, i) => refund(30 + i)));
    const agreed = await memory.synthesize();
    expect(agreed.reinforced).toEqual([expect.objectContaining({ id: skill.id, keptEdit: true })]);
    expect(agreed.reinforced[0]!.suggests).toBeUndefined();
    const now = (await memory.skills.get(skill.id))!;
    expect(now.skillMd).not.toContain('sessions-suggest');
    expect(now.body).toContain('Never refund to a gift card');
    expect(now.toolSequence).toEqual(LEARNED);
    await memory.close();
  });

  it('is not written again by a newer release of its distiller', async () => {
    const db = tempDbPath();
    const { memory, skill } = await learnedRefund(db);
    const edited = (await memory.skills.edit(skill.name, corrected(skill.skillMd)))!.skill;
    await memory.close();
    // What an earlier release of the distiller left: the same edited skill, its text written by heuristic@1.
    const raw = new Database(db);
    raw
      .prepare('UPDATE skills SET skill_md = ? WHERE id = ?')
      .run(edited.skillMd.replace(`learned-by: ${HEURISTIC_DISTILLER_ID}`, 'learned-by: heuristic@1'), skill.id);
    raw.close();
    const upgraded = await openMemory({ db, config, logLevel: 'silent', auditFile: null });
    const report = await upgraded.synthesize();
    expect([...report.updated, ...report.superseded, ...report.created]).toEqual([]);
    const kept = (await upgraded.skills.get(skill.id))!;
    expect(kept).toMatchObject({ version: '1.1.0', toolSequence: edited.toolSequence, body: edited.body });
    await upgraded.close();
  });

  it('goes back to the learner on revert: the text it last learned, under its counts now, written anew by passes', async () => {
    const { memory, skill } = await learnedRefund();
    await memory.skills.edit(skill.name, corrected(skill.skillMd));
    await memory.ingest(Array.from({ length: 4 }, (_, i) => refund(20 + i)));
    await memory.synthesize();
    const res = (await memory.skills.revertEdit(skill.name))!;
    expect(res).toMatchObject({ changed: true, skill: { id: skill.id, version: '1.2.0', toolSequence: LEARNED } });
    expect(res.skill.skillMd).not.toMatch(/edited-by|sessions-suggest/);
    expect(res.skill.body).not.toContain('gift card');
    expect(res.skill.body).toBe(
      skill.body.replace(
        'Learned from 6 successful sessions; 100% of the 6 sessions',
        'Learned from 10 successful sessions; 100% of the 10 sessions',
      ),
    );
    expect((await memory.skills.revertEdit(skill.name))!).toMatchObject({ changed: false, why: 'not-edited' });
    // The learner's again: a pass whose sessions take another path writes a new version of its procedure.
    await memory.ingest(
      Array.from({ length: 12 }, (_, i) => refund(40 + i, ['get_order_details', 'check_policy', 'refund_order'])),
    );
    const report = await memory.synthesize();
    expect([...report.updated, ...report.superseded].map((r) => r.keptEdit)).not.toContain(true);
    const live = (await memory.skills.list()).find((s) => s.name === skill.name)!;
    expect(live.toolSequence).toContain('check_policy');
    await memory.close();
  });

  it('changes nothing for an empty or unchanged text; refuses another name, an imported skill, a bad SKILL.md', async () => {
    const { memory, skill } = await learnedRefund();
    expect(await memory.skills.edit(skill.name, '')).toMatchObject({ changed: false, why: 'empty' });
    expect(await memory.skills.edit(skill.name, skill.skillMd)).toMatchObject({ changed: false, why: 'unchanged' });
    const renamed = skill.skillMd.replace(`name: ${skill.name}`, 'name: refund-to-card');
    await expect(memory.skills.edit(skill.name, renamed)).rejects.toThrow(InputError);
    await expect(memory.skills.edit(skill.name, renamed)).rejects.toThrow(/skills rename/);
    await expect(memory.skills.edit(skill.name, skill.body)).rejects.toThrow(/frontmatter/);
    expect(await memory.skills.edit('no-such-skill', skill.skillMd)).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-edit-import-'));
    const folder = join(dir, 'notes');
    (await import('node:fs')).mkdirSync(folder);
    writeFileSync(join(folder, 'SKILL.md'), '---\nname: notes\ndescription: Mine.\n---\n\n# Notes\n\n1. Call `x`.\n');
    await memory.skills.import(dir);
    await expect(
      memory.skills.edit('notes', '---\nname: notes\ndescription: Mine.\n---\n\n# Notes\n\n1. Call `y`.\n'),
    ).rejects.toThrow(ConflictError);
    expect((await memory.skills.list()).find((s) => s.id === skill.id)!.version).toBe('1.0.0');
    await memory.close();
  });
});

describe('an edited skill on PostgreSQL', () => {
  let pg: PgServer;
  beforeAll(async () => {
    pg = await startPgServer();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('is kept by a later pass, which says what the sessions suggest, and handed back on revert', async () => {
    const { memory, skill } = await learnedRefund(await pg.createDatabase());
    const edited = (await memory.skills.edit(skill.name, corrected(skill.skillMd), { actor: 'pg-user' }))!.skill;
    expect(edited).toMatchObject({ id: skill.id, version: '1.1.0' });
    await memory.ingest(Array.from({ length: 4 }, (_, i) => refund(20 + i)));
    const report = await memory.synthesize();
    expect(report.reinforced).toEqual([expect.objectContaining({ id: skill.id, keptEdit: true, suggests: LEARNED })]);
    const [hit] = await memory.recall('Refund order #W2000 to the original payment method');
    expect(hit).toMatchObject({ id: skill.id, toolSequence: edited.toolSequence });
    expect((await memory.skills.explain(skill.id))!.edited).toMatchObject({ by: 'pg-user', suggests: LEARNED });
    const back = (await memory.skills.revertEdit(skill.name))!;
    expect(back).toMatchObject({ changed: true, skill: { version: '1.2.0', toolSequence: LEARNED } });
    expect((await memory.skills.explain(skill.id))!.versions.map((v) => v.reason)).toEqual(['add', 'edit', 'revert']);
    await memory.close();
  });
});

describe('skills edit from the command line', () => {
  it('edits a step with --file, recall --json serves it, a second learn keeps it and says the sessions differ; --revert', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-edit-cli-'));
    const db = join(dir, 'm.db');
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ synthesis: { cooldownMs: 0 } }));
    // The bundled traces in two halves: the returns skill is learned from the first, and grows with the second.
    const lines = readFileSync(SAMPLE, 'utf8').trim().split('\n');
    writeFileSync(join(dir, 'first.jsonl'), `${lines.slice(0, 60).join('\n')}\n`);
    writeFileSync(join(dir, 'second.jsonl'), `${lines.slice(60).join('\n')}\n`);
    const cli = (args: string[], input?: string) =>
      runBuiltCli([...args, '--db', db, '--config', cfg], { cwd: dir, input, unset: ['VISUAL', 'EDITOR'] });
    expect(cli(['learn', 'first.jsonl']).code).toBe(0);
    const name = 'return-delivered-order-items';
    const shown = JSON.parse(cli(['skills', 'show', name, '--json']).stdout);
    expect(shown.toolSequence).toContain('get_order_details');
    // The person drops the order lookup (the return takes its ids from the user details) and adds a warning.
    const text = (shown.skillMd as string)
      .replace(/^3\. Call `get_order_details`.*\n/m, '')
      .replace(/^4\. Call `return_delivered_order_items`/m, '3. Call `return_delivered_order_items`')
      .replace('## Edge cases\n', '## Edge cases\n\n- Confirm the items with the user first; mail ops@example.com.\n');
    writeFileSync(join(dir, 'SKILL.md'), text);
    const edit = cli(['skills', 'edit', name, '--file', 'SKILL.md']);
    expect(edit.code).toBe(0);
    expect(edit.stdout).toContain(`${name} edited (version 1.1.0)`);
    expect(edit.stderr).toContain('redacted from the text before it was stored (email)');
    const want = ['find_user_id_by_name_zip', 'get_user_details', 'return_delivered_order_items'];
    const [hit] = JSON.parse(cli(['recall', 'I want to return the items of my delivered order', '--json']).stdout);
    expect(hit).toMatchObject({ name, toolSequence: want });
    expect(hit.body).toContain('Confirm the items with the user first; mail [REDACTED:email].');
    expect(hit.body).not.toContain('ops@example.com');

    const second = cli(['learn', 'second.jsonl']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      `kept ${name} as a person edited it; its sessions now suggest another procedure: find_user_id_by_name_zip > get_user_details > get_order_details > return_delivered_order_items`,
    );
    const after = JSON.parse(cli(['skills', 'show', name, '--json']).stdout);
    expect(after).toMatchObject({ version: '1.1.0', toolSequence: want });
    expect(after.support).toBeGreaterThan(shown.support);
    const show = cli(['skills', 'show', name]).stdout;
    expect(show).toMatch(/^edited by a person \(cli, [0-9T:.-]+Z\): later passes keep this text/m);
    expect(show).toContain('its sessions now suggest another procedure: find_user_id_by_name_zip');
    expect(cli(['skills', 'explain', name]).stdout).toMatch(
      /^ {2}1\.1\.0 edit .*: find_user_id_by_name_zip > get_user_details > return_delivered_order_items$/m,
    );
    expect(cli(['skills', 'diff', name]).stdout).toContain('+- Confirm the items with the user first');

    const revert = JSON.parse(cli(['skills', 'edit', name, '--revert', '--json']).stdout);
    expect(revert).toMatchObject({ changed: true, skill: { version: '1.2.0', toolSequence: shown.toolSequence } });
    expect(cli(['skills', 'show', name]).stdout).not.toContain('edited by a person');
  });

  it("keeps the learned description's step count with the edited steps, never rewrites a person's; diff says when the procedure stayed", () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-edit-count-'));
    const db = join(dir, 'm.db');
    const cli = (args: string[]) => runBuiltCli([...args, '--db', db], { cwd: dir, unset: ['VISUAL', 'EDITOR'] });
    expect(cli(['learn', SAMPLE]).code).toBe(0);
    const name = 'exchange-delivered-order-items';
    const show = () => JSON.parse(cli(['skills', 'show', name, '--json']).stdout);
    const edit = (text: string) => {
      writeFileSync(join(dir, 'SKILL.md'), text);
      const r = cli(['skills', 'edit', name, '--file', 'SKILL.md']);
      expect(r.code, r.stderr).toBe(0);
      const diff = JSON.parse(cli(['skills', 'diff', name, '--json']).stdout);
      return { stderr: r.stderr, sameProcedure: diff.to.sameProcedure, skill: show() };
    };
    const learned = show();
    expect(learned.toolSequence).toHaveLength(5);
    expect(learned.description).toContain('(5 steps that worked for agents on this kind of request)');

    // Wording only: a step's prose, the edge cases, the last line. The procedure reads as before.
    const worded = edit(
      (learned.skillMd as string)
        .replace(
          /(1\. Call `find_user_id_by_name_zip` with .*) from the user\./,
          '$1 from the user (ask for all three).',
        )
        .replace('correct the arguments and retry', 'fix the arguments and try again')
        .replace('; repeat for each order concerned', '; repeat for every order concerned'),
    );
    expect(worded).toMatchObject({ sameProcedure: true, skill: { description: learned.description } });
    expect(worded.skill.toolSequence).toEqual(learned.toolSequence);

    // A sixth step, the description left as learned: it says 6 steps, and the procedure changed.
    const sixth = edit(
      (worded.skill.skillMd as string).replace(
        /^(5\. Call `exchange_delivered_order_items`.*)$/m,
        '$1\n6. Call `get_order_details` with `order_id` from the result of `get_user_details` (field `orders[]`), to confirm the exchange.',
      ),
    );
    expect(sixth.sameProcedure).toBe(false);
    expect(sixth.skill.toolSequence).toHaveLength(6);
    expect(sixth.skill.description).toBe(learned.description.replace('(5 steps', '(6 steps'));
    expect(sixth.skill.skillMd).toContain('(6 steps that worked for agents on this kind of request)');
    expect(sixth.stderr).toContain('its learned wording said 5 steps; it now says 6');

    // The person writes their own description (the steps as they were): same procedure.
    const mine =
      'Swap the items of a delivered order for other variants (6 steps that worked for agents on this kind of request).';
    const own = edit((sixth.skill.skillMd as string).replace(/^description: .*$/m, `description: "${mine}"`));
    expect(own).toMatchObject({ sameProcedure: true, skill: { description: mine } });
    // Their description stays theirs when a later edit drops the sixth step again.
    const dropped = edit((own.skill.skillMd as string).replace(/^6\. Call .*\n/m, ''));
    expect(dropped).toMatchObject({ sameProcedure: false, skill: { description: mine } });
    expect(dropped.skill.toolSequence).toEqual(learned.toolSequence);
    expect(dropped.stderr).not.toContain('learned wording');

    // An argument taken from elsewhere is another procedure, whatever the tools.
    const source = edit(
      (dropped.skill.skillMd as string).replace(
        /(3\. Call `get_order_details` with `order_id`) from the result of `get_user_details` \(field `orders\[\]`\)/,
        '$1 from the user',
      ),
    );
    expect(source.sameProcedure).toBe(false);
    expect(source.skill.toolSequence).toEqual(learned.toolSequence);
    const explained = JSON.parse(cli(['skills', 'explain', name, '--json']).stdout);
    expect(
      explained.versions.map((v: { reason: string; sameProcedure: boolean }) => [v.reason, v.sameProcedure]),
    ).toEqual([
      ['add', false],
      ['edit', true],
      ['edit', false],
      ['edit', true],
      ['edit', false],
      ['edit', false],
    ]);
  });

  it('opens the SKILL.md in $EDITOR, reads it back; stdin with --file -; refusals are said and change nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-edit-editor-'));
    const db = join(dir, 'm.db');
    const env = (editor?: string) => (editor ? { EDITOR: editor } : undefined);
    const cli = (args: string[], o: { editor?: string; input?: string } = {}) =>
      runBuiltCli([...args, '--db', db], { cwd: dir, env: env(o.editor), input: o.input, unset: ['VISUAL', 'EDITOR'] });
    expect(cli(['learn', SAMPLE]).code).toBe(0);
    const name = 'exchange-delivered-order-items';
    // An editor that adds a line under the title, as a person would, and one that empties the file.
    const script = (file: string, body: string) => {
      writeFileSync(join(dir, file), `#!/bin/sh\n${body}\n`);
      chmodSync(join(dir, file), 0o755);
      return join(dir, file);
    };
    const adds = script('adds.sh', `printf '\\n- Check the new item is in stock first.\\n' >> "$1"`);
    const empties = script('empties.sh', `: > "$1"`);
    const fails = script('fails.sh', 'exit 3');
    const before = JSON.parse(cli(['skills', 'show', name, '--json']).stdout);

    const edited = cli(['skills', 'edit', name], { editor: adds });
    expect(edited.code).toBe(0);
    expect(edited.stdout).toContain(`${name} edited (version 1.1.0)`);
    const now = JSON.parse(cli(['skills', 'show', name, '--json']).stdout);
    expect(now.skillMd).toContain('- Check the new item is in stock first.');
    expect(now.toolSequence).toEqual(before.toolSequence);

    expect(cli(['skills', 'edit', name], { editor: empties }).stdout).toContain(
      'the text is empty, so nothing changed',
    );
    const failed = cli(['skills', 'edit', name], { editor: fails });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('exited with 3: nothing changed');
    expect(JSON.parse(cli(['skills', 'show', name, '--json']).stdout).version).toBe('1.1.0');

    // Standard input: the steps say no tool as the memory writes them; the procedure stays, said on stderr.
    const prose = (now.skillMd as string).replace(/^(\d+)\. Call `/gm, '$1. Use `');
    const piped = cli(['skills', 'edit', name, '--file', '-', '--json'], { input: prose });
    expect(piped.code).toBe(0);
    const res = JSON.parse(piped.stdout);
    expect(res).toMatchObject({ changed: true, skill: { version: '1.2.0', toolSequence: before.toolSequence } });
    expect(res.warnings).toEqual([expect.stringMatching(/^no step names a tool/)]);

    const renamed = cli(['skills', 'edit', name, '--file', '-'], {
      input: prose.replace(`name: ${name}`, 'name: swap-items'),
    });
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain(`use skills rename ${name} swap-items`);
    expect(cli(['skills', 'edit', name]).code).toBe(2);
    expect(cli(['skills', 'edit', name]).stderr).toContain('set VISUAL or EDITOR');
    expect(cli(['skills', 'edit', name, '--file', 'x.md', '--revert']).code).toBe(2);
    expect(cli(['skills', 'edit', '--help']).stdout).toContain('skills edit NAME [--file PATH|-] [--revert]');

    // A branch section the person deletes takes its branches with it: recall serves the main path alone.
    const mobile = JSON.parse(cli(['skills', 'show', 'fix-mobile-data', '--json']).stdout);
    expect(mobile.branches.length).toBeGreaterThan(0);
    expect(mobile.toolsRequired).toContain('resume_line');
    const unbranched = (mobile.skillMd as string).replace(/## Branches\n[\s\S]*?(?=\n## )/, '');
    expect(unbranched).not.toContain('## Branches');
    expect(cli(['skills', 'edit', 'fix-mobile-data', '--file', '-'], { input: unbranched }).code).toBe(0);
    const [served] = JSON.parse(
      cli(['recall', 'my mobile data is not working on my phone', '--top-k', '1', '--json']).stdout,
    );
    expect(served).toMatchObject({ name: 'fix-mobile-data', branches: [], toolSequence: mobile.toolSequence });
    expect(served.toolsRequired).not.toContain('resume_line');
    // A later pass, whose branching stage would write the section again, leaves the person's text as it is.
    expect(cli(['learn', HELD_BACK]).code).toBe(0);
    const later = JSON.parse(cli(['skills', 'show', 'fix-mobile-data', '--json']).stdout);
    expect(later.branches).toEqual([]);
    expect(later.skillMd).not.toContain('## Branches');
    expect(later.skillMd).toMatch(/^ {2}edited-by: cli$/m);
    expect(JSON.parse(cli(['skills', 'show', name, '--json']).stdout).version).toBe('1.2.0');
  });
});

describe('skills edit over REST', () => {
  let memory: Memory;
  let server: RunningServer;
  beforeAll(async () => {
    memory = await openMemory({ db: tempDbPath(), config, logLevel: 'silent' });
    await memory.ingest(Array.from({ length: 6 }, (_, i) => refund(i)));
    await memory.synthesize();
    server = await serveApi(memory, { port: 0, webRoot: null });
  });
  afterAll(async () => {
    await server?.close();
    await memory?.close();
  });

  const put = (name: string, text: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/skills/${name}/SKILL.md`, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/markdown', 'X-Skillsmith-CSRF': '1', ...headers },
      body: text,
    });

  it('PUT /api/skills/{name}/SKILL.md stores the text as a new version; POST .../revert hands it back', async () => {
    const [skill] = await memory.skills.list();
    const name = skill!.name;
    const text = corrected(skill!.skillMd);
    expect((await put(name, text, { 'X-Skillsmith-CSRF': '' })).status).toBe(403);
    expect((await put(name, text, { 'Content-Type': 'application/json' })).status).toBe(415);
    const bad = await put(name, text.replace(`name: ${name}`, 'name: other-name'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('skills rename');
    expect((await put('no-such-skill', text)).status).toBe(404);
    expect((await memory.skills.get(name))!.version).toBe('1.0.0');

    const ok = await put(name, text);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as any;
    expect(body).toMatchObject({
      changed: true,
      warnings: [expect.stringContaining('`get_payment_method`: no version of')],
      redacted: [],
      skill: {
        id: skill!.id,
        version: '1.1.0',
        toolSequence: ['get_order_details', 'get_payment_method', 'refund_order'],
      },
    });
    const again = (await (await put(name, text)).json()) as any;
    expect(again).toMatchObject({ changed: false, why: 'unchanged' });
    const got = (await (await fetch(`${server.url}/api/skills/${name}`)).json()) as any;
    expect(got.skillMd).toMatch(/^ {2}edited-by: http$/m);
    const explained = (await (await fetch(`${server.url}/api/skills/${name}/explain`)).json()) as any;
    expect(explained.edited).toMatchObject({ by: 'http' });

    const reverted = await fetch(`${server.url}/api/skills/${name}/revert`, {
      method: 'POST',
      headers: { 'X-Skillsmith-CSRF': '1' },
    });
    expect(reverted.status).toBe(200);
    expect(await reverted.json()).toMatchObject({ changed: true, skill: { version: '1.2.0', toolSequence: LEARNED } });

    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as any;
    expect(doc.paths['/api/skills/{name}/SKILL.md'].put.requestBody.content['text/markdown'].schema.type).toBe(
      'string',
    );
    expect(doc.paths['/api/skills/{name}/revert'].post).toBeDefined();
    expect(doc.components.schemas.SkillEdit.required).toEqual(['skill', 'changed', 'warnings', 'redacted']);
  });
});
