// An MCP server's update renames a tool under a learned skill: a shop agent changed order addresses with
// get_order > update_address for weeks, and now calls set_address (same arguments, same answer). Real SQLite files,
// the library and the built CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Skill } from '../src/domain/types.js';
import { AFTER, BEFORE } from './support/address-goals.js';
import { runBuiltCli } from './support/built-cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

class Shop {
  clock = Date.parse('2025-02-03T09:00:00Z');
  n = 0;
  memory!: Memory;
  readonly dir = mkdtempSync(join(tmpdir(), 'skillsmith-tool-rename-'));
  readonly db = join(this.dir, 'shop.db');

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

  /**
   * One address change that ends in success: the tool it changes the address with, the words it was asked in, and
   * what else it does (`args`: the change's arguments; `notify`: a notice to the customer after it; `status`: what the
   * lookup shows of the order). Returns the
   * names recall served it.
   */
  async change(
    tool: string,
    words: ((o: string) => string)[],
    opts: { args?: (o: string) => Record<string, unknown>; notify?: boolean; status?: string } = {},
  ): Promise<string[]> {
    const order = `W${1000 + ++this.n}`;
    const s = await this.memory.startSession({ goal: words[this.n % words.length](order), source: 'shop-agent' });
    const served = await s.recall();
    await s.call({
      tool: 'get_order',
      args: { order_id: order },
      result: JSON.stringify({ id: order, status: opts.status ?? 'pending', address: '1 Old Road' }),
      ok: true,
    });
    await s.call({
      tool,
      args: opts.args?.(order) ?? { order_id: order, address: '31 Cedar Court' },
      result: JSON.stringify({ id: order, status: 'pending', address: '31 Cedar Court' }),
      ok: true,
    });
    if (opts.notify)
      await s.call({ tool: 'notify_customer', args: { order_id: order }, result: '{"sent": true}', ok: true });
    await s.end('success');
    this.clock += 6 * 3600_000;
    return served.map((h) => h.name);
  }

  /** The skills (with the superseded ones) whose main path changes the address with `tool`. */
  async calling(tool: string): Promise<Skill[]> {
    return (await this.memory.skills.list({ includeSuperseded: true })).filter((s) => s.toolSequence.includes(tool));
  }

  cli(args: string[]) {
    return runBuiltCli([...args, '--db', this.db], { cwd: this.dir });
  }
}

/** A shop whose skill of the old tool was learned and then passed three trials. */
async function learnedShop(): Promise<{ shop: Shop; old: Skill }> {
  const shop = await new Shop().open();
  for (let i = 0; i < 4; i++) await shop.change('update_address', BEFORE);
  await shop.memory.synthesize();
  const [old] = await shop.calling('update_address');
  expect(old.toolSequence).toEqual(['get_order', 'update_address']);
  for (let i = 0; i < 3; i++) expect(await shop.change('update_address', BEFORE)).toEqual([old.name]);
  return { shop, old };
}

describe('a tool renamed under a learned skill', () => {
  it('the skill learned from the renamed calls supersedes the old one: one live skill, lineage, old track record kept', async () => {
    const { shop, old } = await learnedShop();
    // The server is updated: the agent now calls set_address, and is asked in other words.
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    const report = await shop.memory.synthesize();
    const [fresh] = await shop.calling('set_address');
    expect(fresh.toolSequence).toEqual(['get_order', 'set_address']);
    expect(report.superseded).toEqual([
      expect.objectContaining({
        id: fresh.id,
        name: fresh.name,
        supersedes: old.id,
        renamed: [{ from: 'update_address', to: 'set_address' }],
      }),
    ]);
    // The old skill is kept, with its track record, superseded by the new one; one live skill does the task.
    const kept = (await shop.memory.skills.get(old.id))!;
    expect(kept).toMatchObject({ supersededBy: fresh.id, trialsPassed: 3, trialsAttempted: 3 });
    const live = (await shop.memory.skills.list()).filter((s) => s.toolSequence.includes('get_order'));
    expect(live.map((s) => s.id)).toEqual([fresh.id]);
    // Requests worded as before the rename and after it find the new skill, and never the old one.
    for (const goal of [...BEFORE, ...AFTER].map((w) => w('W9000'))) {
      const served = await shop.memory.recall(goal, { record: false });
      expect(served.map((h) => h.name)).toEqual([fresh.name]);
    }
    // An agent that names its tools: with the new name, the new skill; with the old one, nothing.
    const tools = (t: string[]) => shop.memory.recall(BEFORE[0]('W9001'), { tools: t, record: false });
    expect((await tools(['get_order', 'set_address'])).map((h) => h.name)).toEqual([fresh.name]);
    expect(await tools(['get_order', 'update_address'])).toEqual([]);
    const why = (await shop.memory.skills.explain(old.id))!;
    expect(why.supersedeChain.map((s) => s.name)).toEqual([old.name, fresh.name]);
    expect(why.renamedTools).toEqual([{ from: 'update_address', to: 'set_address' }]);
    expect(why.standing.reason).toBe(
      `superseded by ${fresh.name} (the same procedure: update_address is now set_address): recall serves that skill for its requests`,
    );

    // More runs with the new name: the pass reinforces the new skill and leaves the old one superseded.
    for (let i = 0; i < 3; i++) expect(await shop.change('set_address', AFTER)).toEqual([fresh.name]);
    const next = await shop.memory.synthesize();
    expect(next.superseded).toEqual([]);
    expect(next.created).toEqual([]);
    expect((await shop.memory.skills.get(old.id))!.supersededBy).toBe(fresh.id);
    await shop.memory.close();

    // What a person sees from the CLI.
    const show = shop.cli(['skills', 'show', old.name]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      `superseded by ${fresh.name} ${fresh.version} (the same procedure: update_address is now set_address): it is not recalled`,
    );
    const all = JSON.parse(shop.cli(['skills', 'list', '--all', '--json']).stdout) as Skill[];
    expect(all.find((s) => s.id === old.id)?.supersededBy).toBe(fresh.id);
    const recalled = shop.cli(['recall', BEFORE[1]('W9002'), '--tools', 'get_order,set_address', '--json']);
    expect(JSON.parse(recalled.stdout).map((s: { name: string }) => s.name)).toEqual([fresh.name]);
  });

  it("forgetting the old skill's sessions takes their wordings out of the successor's exemplars too", async () => {
    const { shop, old } = await learnedShop();
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    await shop.memory.synthesize();
    const [fresh] = await shop.calling('set_address');
    const store = shop.memory.parts.store!;
    const sourcesOf = async (id: string) =>
      ((await store.getSkill('default', id))!.exemplarSources ?? []).flatMap((s) => s ?? []);
    // The successor took the old skill's wordings, and says whose they are: sessions it does not name as parents.
    const theirs = old.sourceSessions.filter((id) => !fresh.sourceSessions.includes(id));
    expect(theirs.length).toBeGreaterThan(0);
    expect((await sourcesOf(fresh.id)).some((id) => theirs.includes(id))).toBe(true);
    for (const id of theirs) await shop.memory.sessions.forget(id);
    expect((await sourcesOf(fresh.id)).filter((id) => theirs.includes(id))).toEqual([]);
    expect(await sourcesOf(fresh.id)).not.toEqual([]);
    await shop.memory.close();
  });

  it("a name a person gave the old skill goes on with its successor; the successor's own name still finds it", async () => {
    const { shop, old } = await learnedShop();
    await shop.memory.skills.rename(old.id, 'fix-shipping-address', { actor: 'dana' });
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    const report = await shop.memory.synthesize();
    const [heir] = (await shop.calling('set_address')).filter((s) => !s.supersededBy);
    expect(report.superseded).toEqual([
      expect.objectContaining({ id: heir!.id, name: 'fix-shipping-address', supersedes: old.id }),
    ]);
    expect(heir!.name).toBe('fix-shipping-address');
    expect(heir!.skillMd).toMatch(/named-by: dana/);
    expect(heir!.body.split('\n')[0]).toBe('# Fix Shipping Address');
    expect(heir!.description).toMatch(/^Fix Shipping Address: /);
    // Its planners ask by the person's name and get the new procedure; a request finds it too.
    expect((await shop.memory.skills.get('fix-shipping-address'))?.toolSequence).toEqual(['get_order', 'set_address']);
    expect((await shop.memory.recall(AFTER[0]('W9003'), { record: false })).map((h) => h.name)).toEqual([
      'fix-shipping-address',
    ]);
    // The name its draft gave it says where it went.
    const former = /renamed-from: (\S+)/.exec(heir!.skillMd)?.[1];
    expect(former).toBeTruthy();
    expect(await shop.memory.skills.nowKnownAs(former!)).toEqual({ name: 'fix-shipping-address', how: 'renamed' });
    // More runs: the next pass keeps the person's name.
    for (let i = 0; i < 3; i++) await shop.change('set_address', AFTER);
    await shop.memory.synthesize();
    expect((await shop.memory.skills.get(heir!.id))?.name).toBe('fix-shipping-address');
    await shop.memory.close();
  });

  it('the pass report says it, and a dry run writes nothing (built CLI)', async () => {
    const { shop, old } = await learnedShop();
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    await shop.memory.close();
    const dry = shop.cli(['synthesize', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        `superseded would be ${old.name} 1\\.0\\.0 by \\S+ 1\\.0\\.0 \\(the same procedure: update_address is now set_address\\)`,
      ),
    );
    expect(JSON.parse(shop.cli(['skills', 'list', '--json']).stdout).map((s: Skill) => s.id)).toEqual([old.id]);
    const run = shop.cli(['synthesize', '--json']);
    const report = JSON.parse(run.stdout);
    expect(report.superseded).toEqual([
      expect.objectContaining({ supersedes: old.id, renamed: [{ from: 'update_address', to: 'set_address' }] }),
    ]);
    const live = JSON.parse(shop.cli(['skills', 'list', '--json']).stdout) as Skill[];
    expect(live.map((s) => s.toolSequence)).toEqual([['get_order', 'set_address']]);
  });

  it('while the old name still works in some runs, both skills stay; once the new name alone has worked for a while, the old one is superseded', async () => {
    const { shop, old } = await learnedShop();
    // Agents are updated one by one: for a while, some still change addresses with update_address, and it works.
    for (let i = 0; i < 3; i++) {
      await shop.change('set_address', AFTER);
      await shop.change('update_address', BEFORE);
    }
    await shop.change('set_address', AFTER);
    const report = await shop.memory.synthesize();
    const [fresh] = await shop.calling('set_address');
    expect(fresh).toBeDefined();
    expect(report.superseded).toEqual([]);
    expect((await shop.memory.skills.get(old.id))!.supersededBy).toBeNull();
    // Every agent is updated: only set_address from now on. Once it alone has worked in as many runs as the two names
    // overlapped over (6, from the first set_address to the last update_address), a pass links them.
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    expect((await shop.memory.synthesize()).superseded).toEqual([]);
    await shop.change('set_address', AFTER);
    const linked = await shop.memory.synthesize();
    expect(linked.superseded).toEqual([expect.objectContaining({ id: fresh.id, supersedes: old.id })]);
    await shop.memory.close();
  });

  it('a procedure that differs otherwise, a tool that takes other arguments, or one called for other requests or in another situation is not taken for a rename', async () => {
    const { shop, old } = await learnedShop();
    // A step more: the new runs also notify the customer.
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER, { notify: true });
    expect((await shop.memory.synthesize()).superseded).toEqual([]);
    expect((await shop.memory.skills.get(old.id))!.supersededBy).toBeNull();
    await shop.memory.close();

    const other = await learnedShop();
    // Another tool's arguments: a patch of fields, not an address.
    const patch = (o: string) => ({ order_id: o, fields: { address: '31 Cedar Court' } });
    for (let i = 0; i < 4; i++) await other.shop.change('patch_order', AFTER, { args: patch });
    expect((await other.shop.memory.synthesize()).superseded).toEqual([]);
    const [patched] = await other.shop.calling('patch_order');
    expect(patched.toolSequence).toEqual(['get_order', 'patch_order']);
    expect((await other.shop.memory.skills.get(other.old.id))!.supersededBy).toBeNull();
    await other.shop.memory.close();

    const billing = await learnedShop();
    // The same arguments, answers and situation, but every request is for the billing address: another task.
    const BILLING = [
      (o: string) => `Correct the billing address on order ${o}, the card statement goes to 5 Maple Drive`,
      (o: string) => `The invoice for order ${o} must show my billing address 18 Walnut Street`,
      (o: string) => `Put 60 Spruce Way as the billing address of order ${o}`,
    ];
    for (let i = 0; i < 4; i++) await billing.shop.change('set_address', BILLING);
    expect((await billing.shop.memory.synthesize()).superseded).toEqual([]);
    expect((await billing.shop.memory.skills.get(billing.old.id))!.supersededBy).toBeNull();
    await billing.shop.memory.close();

    const third = await learnedShop();
    // The same arguments and answers, but only for orders the lookup shows delivered: another task, not a rename.
    for (let i = 0; i < 5; i++) await third.shop.change('set_address', AFTER, { status: 'delivered' });
    expect((await third.shop.memory.synthesize()).superseded).toEqual([]);
    expect(await third.shop.calling('set_address')).toHaveLength(1);
    expect((await third.shop.memory.skills.get(third.old.id))!.supersededBy).toBeNull();
    await third.shop.memory.close();
  });

  it('a skill a person edited is not superseded: it is kept, and says what its sessions now suggest', async () => {
    const { shop, old } = await learnedShop();
    const text = old.skillMd.replace('## Steps', '## Steps\n\nConfirm the new address with the customer first.\n');
    expect((await shop.memory.skills.edit(old.id, text, { actor: 'ana' }))?.changed).toBe(true);
    for (let i = 0; i < 4; i++) await shop.change('set_address', AFTER);
    const report = await shop.memory.synthesize();
    expect(report.superseded).toEqual([]);
    expect(report.reinforced).toContainEqual(
      expect.objectContaining({ id: old.id, keptEdit: true, suggests: ['get_order', 'set_address'] }),
    );
    const kept = (await shop.memory.skills.get(old.id))!;
    expect(kept.supersededBy).toBeNull();
    expect(kept.skillMd).toContain('Confirm the new address with the customer first.');
    expect((await shop.memory.skills.explain(old.id))!.edited).toMatchObject({
      by: 'ana',
      suggests: ['get_order', 'set_address'],
    });
    // Said once: the next pass does not write it again.
    await shop.change('set_address', AFTER);
    expect((await shop.memory.synthesize()).reinforced.filter((r) => r.id === old.id)).toEqual([]);
    await shop.memory.close();
    const pass = shop.cli(['skills', 'show', old.name]);
    expect(pass.stdout).toContain('get_order > set_address');
  });
});
