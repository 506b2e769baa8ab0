// A session id that holds personal data (an email) is stored as a keyed hash (`sid_…`). What the servers keep or serve
// to others (their log, the audit table and file, the event stream) never carries it raw, whatever a client does with
// it over REST or MCP: start, record, end twice, report another outcome, forget, forget again.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { serveMcpHttp } from '../src/surfaces/mcp/http.js';
import { createLogger } from '../src/support/log.js';
import { tracesInFile } from './support/forget-fixture.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { runCli } from './support/surfaces.js';

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-id-echo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EMAIL = 'jane.doe@example.com';

/** Everything the memory keeps or serves to others: its log lines, audit records (table and file) and events. */
async function kept(memory: Awaited<ReturnType<typeof openMemory>>, lines: string[], db: string): Promise<string> {
  const store = memory.parts.store!;
  const file = `${db}.audit.jsonl`;
  return [
    ...lines,
    JSON.stringify(await store.audit('default')),
    JSON.stringify(await store.events('default', { limit: 1000 })),
    existsSync(file) ? readFileSync(file, 'utf8') : '',
  ].join('\n');
}

/** Over REST, on the memory at `db`: start, record, end, end otherwise (409), record after the end (409), forget twice. */
async function overRest(db: string) {
  const lines: string[] = [];
  const memory = await openMemory({ db, logger: createLogger('debug', 'skillsmith', (l) => lines.push(l)) });
  const server = await serveApi(memory, { port: 0, webRoot: null });
  const id = `task-${EMAIL}`;
  const path = `${server.url}/api/sessions/${encodeURIComponent(id)}`;
  const headers = { 'content-type': 'application/json', 'x-skillsmith-csrf': '1' };
  const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  try {
    expect((await post(`${server.url}/api/sessions`, { id, goal: 'refund my order' })).status).toBe(201);
    expect((await post(`${path}/calls`, { tool: 'get_order', args: {} })).status).toBe(201);
    expect((await post(`${path}/end`, { outcome: 'success' })).status).toBe(200);
    // The conflicts name the session as stored (its keyed hash), not as sent.
    for (const [url, body] of [
      [`${path}/end`, { outcome: 'failure' }],
      [`${path}/calls`, { tool: 'get_order', args: {} }],
    ] as const) {
      const res = await post(url, body);
      expect(res.status).toBe(409);
      const { error } = (await res.json()) as { error: string };
      expect(error).toMatch(/^session sid_[0-9a-f]{20} already ended/);
    }
    const gone = await fetch(path, { method: 'DELETE', headers });
    expect(gone.status).toBe(200);
    expect(await gone.text()).not.toContain('jane.doe');
    expect((await fetch(path, { method: 'DELETE', headers })).status).toBe(404);
    const all = await kept(memory, lines, db);
    expect(all).toContain('session.forget');
    expect(all).not.toContain('jane.doe');
  } finally {
    await server.close();
    await memory.close();
  }
}

describe('a session id holding an email', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPgServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('over REST on SQLite: never kept raw, whatever the requests', async () => {
    await overRest(join(dir, 'rest.db'));
  });

  it('over REST on PostgreSQL: never kept raw, whatever the requests', async () => {
    await overRest(await server.createDatabase('id_echo'));
  });

  it('over MCP: never kept raw, whatever the tool calls', async () => {
    const db = join(dir, 'mcp.db');
    const lines: string[] = [];
    const memory = await openMemory({ db, logger: createLogger('debug', 'skillsmith', (l) => lines.push(l)) });
    const server = await serveMcpHttp(memory, { port: 0 });
    const client = new Client({ name: 'skillsmith-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const id = `task-${EMAIL}`;
    const answers: string[] = [];
    try {
      for (const [name, args] of [
        ['record_tool_call', { session_id: id, goal: 'refund my order', tool: 'get_order', args: {} }],
        ['end_session', { session_id: id, outcome: 'success' }],
        ['end_session', { session_id: id, outcome: 'failure' }],
        ['record_tool_call', { session_id: id, tool: 'get_order', args: {} }],
        ['forget_session', { session_id: id }],
        ['forget_session', { session_id: id }],
      ] as const)
        answers.push(JSON.stringify(await call(name, args)));
      // The conflicts name the session as stored; what echoes the id is the answer to the client that sent it.
      expect(answers[2]).toMatch(/session sid_[0-9a-f]{20} already ended/);
      expect(answers[3]).toMatch(/session sid_[0-9a-f]{20} has already ended/);
      const all = await kept(memory, lines, db);
      expect(all).toContain('session.forget');
      expect(all).not.toContain('jane.doe');
    } finally {
      await client.close();
      await server.close();
      await memory.close();
    }
  });

  it('forgotten by the CLI: its log and the audit file never carry it raw', async () => {
    const db = join(dir, 'cli.db');
    const id = `task-${EMAIL}`;
    const memory = await openMemory({ db, logLevel: 'silent' });
    const s = await memory.startSession({ id, goal: 'refund my order' });
    await s.call({ tool: 'get_order', args: {} });
    await s.end('success');
    await memory.close();
    // Stored as its keyed hash: no byte of the id in the database file.
    expect(tracesInFile(db, ['jane.doe'])).toEqual([]);
    const r = runCli(['sessions', 'forget', id, '--db', db, '--log-level', 'debug'], dir);
    expect(r.code).toBe(0);
    // The answer to the person who typed the id may say it; the log lines (stderr) and what is stored may not.
    expect(r.stdout).toContain('forgotten (1 calls)');
    expect(r.stderr).not.toContain('jane.doe');
    const again = runCli(['sessions', 'forget', id, '--db', db, '--json'], dir);
    expect(again.code).toBe(1);
    const audit = readFileSync(`${db}.audit.jsonl`, 'utf8');
    expect(audit).toContain('session.forget');
    expect(audit).not.toContain('jane.doe');
  });
});
