// A coding agent upgrades a dependency three times, asked three ways ("upgrade zod to the latest version", "bump
// date-fns to the newest version", ...). The embedded GloVe vectors find those requests too far apart to group,
// so each run waits alone and nothing is learned. The pass says they ran the same steps and how to learn them as
// one skill; `sessions alike` lists them later (a hook's passes print nothing). Real SQLite, the built CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookAlike } from '../src/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { serveMcpHttp } from '../src/surfaces/mcp/http.js';
import { runBuiltCli } from './support/built-cli.js';
import {
  OTHER_CODING as OTHERS,
  scriptedSession as session,
  type ScriptedRun,
  UPGRADES,
} from './support/coding-tasks.js';
import { testMemories } from './support/memories.js';

const line = (s: ScriptedRun) => JSON.stringify({ session_id: s.id, goal: s.goal, success: true, steps: s.steps });

let dir: string;
let db: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-look-alike-'));
  db = join(dir, 'memory.db');
  file = join(dir, 'sessions.jsonl');
  writeFileSync(file, `${[...UPGRADES, ...OTHERS].map(line).join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runBuiltCli([...args, '--db', db], { cwd: dir });

describe('sessions that ran the same steps but were asked for in other words', () => {
  it('are said after the pass, with the command that learns them as one skill, which then works', () => {
    const learned = cli('learn', file);
    expect(learned.stderr).toBe('');
    expect(learned.code).toBe(0);
    // Nothing was learned from the upgrades: each waits alone.
    const skills = JSON.parse(cli('skills', 'list', '--json').stdout) as { sourceSessions: string[] }[];
    expect(skills.flatMap((s) => s.sourceSessions).filter((id) => id.startsWith('up-'))).toEqual([]);
    const hint = learned.stdout.split('\n\n').find((p) => p.startsWith('Alike, not yet one skill'));
    expect(hint).toBeDefined();
    // `npm test` is no telling step here: most of this agent's sessions run it. `npm outdated` is one: its exit
    // status 1, which the log calls an error, is its answer (something is outdated).
    expect(hint).toContain('3 sessions ran the same steps (`npm outdated`, `npm install`)');
    for (const u of UPGRADES) expect(hint).toContain(JSON.stringify(u.goal));
    // Read and Edit, which most sessions call, make no look-alikes of the two documentation edits.
    expect(learned.stdout).not.toContain('README that documents');
    const command = /If they are one task, learn it with: npx skillsmith (compile .*)$/m.exec(hint!)?.[1];
    expect(command).toBeDefined();
    const args = command!.split(' ');
    expect(
      args
        .slice(args.indexOf('--sessions') + 1)[0]
        .split(',')
        .sort(),
    ).toEqual(UPGRADES.map((u) => u.id).sort());
    expect(args.slice(-2)).toEqual(['--db', db]);

    // Where a hook user looks after their sessions were learned quietly: the skill list says the group waits.
    expect(cli('skills', 'list').stdout).toContain(
      `One group of sessions ran the same steps but was asked for in words too far apart to group, each too few to learn from alone: skillsmith sessions alike --db ${db} shows them`,
    );
    // Later, as a hook user would ask: the same group, as JSON.
    const listed = cli('sessions', 'alike', '--json');
    expect(listed.code).toBe(0);
    const groups = JSON.parse(listed.stdout) as LookAlike[];
    expect(groups).toHaveLength(1);
    expect([...groups[0].sessions].sort()).toEqual(UPGRADES.map((u) => u.id).sort());
    expect(groups[0].goals).toEqual(groups[0].sessions.map((id) => UPGRADES.find((u) => u.id === id)!.goal));
    expect(groups[0].steps).toEqual([
      { tool: 'Bash', command: 'npm outdated' },
      { tool: 'Bash', command: 'npm install' },
    ]);

    // The printed command, run as printed, learns the skill; the group is then no longer said.
    const compiled = runBuiltCli(args, { cwd: dir });
    expect(compiled.code).toBe(0);
    const name = /^Committed: add ([a-z0-9-]+)\./m.exec(compiled.stdout)?.[1];
    expect(name).toBeDefined();
    expect(cli('sessions', 'alike').stdout).toContain('No sessions wait alone');
    expect(cli('skills', 'list').stdout).not.toContain('ran the same steps');
    const recalled = cli('recall', 'update typescript to the newest version', '--json');
    expect(recalled.code).toBe(0);
    const hits = JSON.parse(recalled.stdout) as { name: string; toolSequence: string[] }[];
    expect(hits[0]?.name).toBe(name);
    expect(hits[0].toolSequence).toEqual(['Bash', 'Bash', 'Bash']);
    // The check that finds what is outdated is the procedure's first step, not a command to avoid.
    const shown = cli('skills', 'show', name!).stdout;
    expect(shown).toContain('1. Run `npm outdated` with `Bash`.');
    expect(shown).not.toContain('Do not run');
  });
});

const { fresh } = testMemories('skillsmith-look-alike-pass-');

describe('the pass report', () => {
  it('carries a group when one of its sessions is new, once', async () => {
    const memory = await fresh();
    await memory.ingest([...UPGRADES.slice(0, 2), ...OTHERS].map(session));
    const first = await memory.synthesize();
    expect(first.lookAlike?.map((g) => [...g.sessions].sort())).toEqual([['up-eslint', 'up-zod']]);
    // Nothing new: the group is not said again by a pass (sessions alike still lists it).
    const second = await memory.synthesize();
    expect(second.lookAlike).toBeUndefined();
    expect((await memory.synthesis.lookAlike()).map((g) => g.sessions.length)).toEqual([2]);
    // A third run: said with the runs alike to it (all three check what is outdated, then install: npm outdated's
    // exit status 1 is its answer, a step of each). A dry run says it too; sessions alike lists the whole group.
    await memory.ingest([session(UPGRADES[2])]);
    const dry = await memory.synthesize({ dryRun: true });
    expect(dry.lookAlike?.map((g) => [...g.sessions].sort())).toEqual([['up-datefns', 'up-eslint', 'up-zod']]);
    const third = await memory.synthesize();
    expect(third.lookAlike?.map((g) => [...g.sessions].sort())).toEqual([['up-datefns', 'up-eslint', 'up-zod']]);
    expect((await memory.synthesis.lookAlike()).map((g) => [...g.sessions].sort())).toEqual([
      ['up-datefns', 'up-eslint', 'up-zod'],
    ]);
  });
});

describe('a session still open', () => {
  it('makes no look-alike finding until it ends', async () => {
    const memory = await fresh();
    await memory.ingest([...UPGRADES.slice(0, 2), ...OTHERS].map(session));
    expect((await memory.synthesize()).lookAlike?.map((g) => g.sessions.length)).toEqual([2]);
    // A third upgrade, recorded while its agent still works (no end, no outcome): a cluster of its own that changed.
    // It counts for nothing yet, so the pass does not say the group again because of it.
    await memory.ingest([{ ...session(UPGRADES[2]), outcome: 'unknown', reward: null }]);
    const open = await memory.synthesize();
    expect(open.stats.newSessions).toBe(1);
    expect(open.lookAlike).toBeUndefined();
    expect((await memory.synthesis.lookAlike()).map((g) => [...g.sessions].sort())).toEqual([['up-eslint', 'up-zod']]);
    // Once it ends (successfully), the next pass says the group with it.
    await memory.reportOutcome(UPGRADES[2].id, 'success');
    const ended = await memory.synthesize();
    expect(ended.lookAlike?.map((g) => [...g.sessions].sort())).toEqual([['up-datefns', 'up-eslint', 'up-zod']]);
  });
});

describe('GET /api/look-alike', () => {
  it('answers the groups over HTTP, and POST /api/compile with one learns it', async () => {
    const memory = await fresh();
    await memory.ingest([...UPGRADES, ...OTHERS].map(session));
    await memory.synthesize();
    const server = await serveApi(memory, { port: 0 });
    try {
      const listed = await fetch(`${server.url}/api/look-alike`);
      expect(listed.status).toBe(200);
      const groups = (await listed.json()) as LookAlike[];
      expect(groups.map((g) => [...g.sessions].sort())).toEqual([UPGRADES.map((u) => u.id).sort()]);
      const compiled = await fetch(`${server.url}/api/compile`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ sessions: groups[0].sessions, commit: true }),
      });
      expect(compiled.status).toBe(200);
      expect(await (await fetch(`${server.url}/api/look-alike`)).json()).toEqual([]);
      // Sessions a library or REST client recorded (npm outdated reported failed, "Exit code 1") teach what the same
      // sessions from a log file teach: the check that finds what is outdated is a step, not a command to avoid.
      const { skill } = (await compiled.json()) as { skill: { name: string } };
      const md = await (await fetch(`${server.url}/api/skills/${skill.name}/SKILL.md`)).text();
      expect(md).toContain('Run `npm outdated` with `Bash`');
      expect(md).not.toContain('Do not run');
      const stored = await memory.sessions.get(UPGRADES[0]!.id);
      expect(stored?.calls[0]).toMatchObject({ ok: true, error: null });
      expect(stored?.calls[0]?.result).toContain('Exit code 1');
    } finally {
      await server.close();
    }
  });
});

describe('the MCP tool look_alike_sessions', () => {
  it('gives an agent the groups, which compile_skill with their session_ids then learns', async () => {
    const memory = await fresh();
    await memory.ingest([...UPGRADES, ...OTHERS].map(session));
    await memory.synthesize();
    const server = await serveMcpHttp(memory, { port: 0 });
    const client = new Client({ name: 'skillsmith-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const listed = await call('look_alike_sessions');
      expect(listed.isError).toBeFalsy();
      const { groups } = listed.structuredContent as { groups: LookAlike[] };
      expect(groups.map((g) => [...g.sessions].sort())).toEqual([UPGRADES.map((u) => u.id).sort()]);
      const said = listed.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      expect(said).toContain('3 sessions ran npm outdated, npm install');
      expect(said).toContain(JSON.stringify(UPGRADES[0].goal));
      const compiled = await call('compile_skill', { session_ids: groups[0].sessions, commit: true });
      expect(compiled.isError).toBeFalsy();
      expect((compiled.structuredContent as { action: string }).action).toBe('add');
      const after = await call('look_alike_sessions');
      expect((after.structuredContent as { groups: LookAlike[] }).groups).toEqual([]);
      expect(after.content[0]).toMatchObject({ text: expect.stringContaining('No sessions wait alone') });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
