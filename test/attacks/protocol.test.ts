// Issue #14, attacks 4, 5 and 8: bounded servers and honest protocol behaviour. Real HTTP servers, the real
// MCP SDK client, the built CLI over stdio, real sockets and a real PostgreSQL server.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../../src/app/open-memory.js';
import type { Memory } from '../../src/app/memory.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { createLogger } from '../../src/support/log.js';
import { serveApi } from '../../src/surfaces/http/server.js';
import { serveMcpHttp } from '../../src/surfaces/mcp/http.js';
import { plainSession } from '../support/capture.js';
import { tempDbPath } from '../support/tau.js';
import { startPgServer, type PgServer } from '../support/pg-server.js';
import { cliArgs, learnSample, ROOT } from '../support/surfaces.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function stdioClient(db: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(['mcp', '--db', db, '--log-level', 'error']),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'attack', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('end_session is once', () => {
  it('over MCP stdio: a second end with another outcome is an error and never flips the stored outcome', async () => {
    const db = tempDbPath('skillsmith-proto-');
    const client = await stdioClient(db);
    const rec = (await client.callTool({
      name: 'record_tool_call',
      arguments: { goal: 'refund my order', tool: 'get_order', result: 'ok' },
    })) as CallToolResult;
    const sid = (rec.structuredContent as { session_id: string }).session_id;
    const first = (await client.callTool({
      name: 'end_session',
      arguments: { session_id: sid, outcome: 'success' },
    })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    const again = (await client.callTool({
      name: 'end_session',
      arguments: { session_id: sid, outcome: 'failure' },
    })) as CallToolResult;
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/already ended as success/);
    const same = (await client.callTool({
      name: 'end_session',
      arguments: { session_id: sid, outcome: 'success' },
    })) as CallToolResult;
    expect(same.isError).toBeFalsy();
    await client.close();
    const memory = await openMemory({ db, logLevel: 'silent', auditFile: null });
    expect((await memory.parts.store!.getSession('default', sid))!.outcome).toBe('success');
    await memory.close();
  });

  it('in the library: a recorder ends once; reporting another outcome later is refused', async () => {
    const memory = await openMemory({ db: tempDbPath('skillsmith-proto-'), logLevel: 'silent', auditFile: null });
    const s = await memory.startSession({ goal: 'refund my order' });
    await s.end('success');
    await expect(s.end('failure')).rejects.toThrow(/already ended/);
    await expect(memory.reportOutcome(s.id, 'failure')).rejects.toThrow(/already ended as success/);
    expect((await memory.parts.store!.getSession('default', s.id))!.outcome).toBe('success');
    await memory.close();
  });
});

describe('MCP stdio answers bad input per JSON-RPC and keeps serving', () => {
  it('parse error, invalid request and a 12 MB message each get an error; the server then still answers', async () => {
    const db = tempDbPath('skillsmith-proto-');
    const child = spawn(process.execPath, cliArgs(['mcp', '--db', db, '--log-level', 'error']), {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const answers: Record<string, unknown>[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        answers.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 600 && answers.length < n; i++) await new Promise((r) => setTimeout(r, 50));
      expect(answers.length).toBeGreaterThanOrEqual(n);
    };
    child.stdin.write('this is not json\n');
    await waitFor(1);
    expect(answers[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    child.stdin.write('{"hello": "world", "id": 7}\n');
    await waitFor(2);
    expect(answers[1]).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    const huge = JSON.stringify({
      method: 'tools/call',
      params: { name: 'record_tool_call', arguments: { goal: 'g', tool: 't', result: 'x'.repeat(12 * 1024 * 1024) } },
      jsonrpc: '2.0',
      id: 42,
    });
    child.stdin.write(`${huge}\n`);
    await waitFor(3);
    expect(answers[2]).toMatchObject({
      jsonrpc: '2.0',
      id: 42,
      error: { code: -32600, message: expect.stringMatching(/over the \d+-byte limit/) },
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    await waitFor(4);
    expect(answers[3]).toMatchObject({ id: 1, result: { serverInfo: { name: 'skillsmith' } } });
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  }, 60_000);

  it('a record over the size limit is a tool error, not a stored call', async () => {
    const db = tempDbPath('skillsmith-proto-');
    const client = await stdioClient(db);
    const r = (await client.callTool({
      name: 'record_tool_call',
      arguments: { goal: 'g', tool: 't', result: 'x'.repeat(4.5 * 1024 * 1024) },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/over the 4194304-byte limit/);
    const ok = (await client.callTool({
      name: 'record_tool_call',
      arguments: { goal: 'g', tool: 't', result: 'fine' },
    })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    await client.close();
  }, 60_000);
});

describe('bounded HTTP servers', () => {
  let memory: Memory;
  beforeAll(async () => {
    const db = tempDbPath('skillsmith-proto-');
    await learnSample(db);
    memory = await openMemory({ db, logLevel: 'silent', auditFile: null });
  });
  afterAll(() => memory.close());

  const initialize = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  it('MCP over HTTP caps its sessions and expires idle ones', async () => {
    const server = await serveMcpHttp(memory, { port: 0, maxSessions: 5, sessionIdleMs: 3000 });
    try {
      for (let i = 0; i < 5; i++) {
        const r = await initialize(server.url);
        expect(r.status).toBe(200);
        await r.body?.cancel();
      }
      expect(server.openSessions()).toBe(5);
      const refused = await initialize(server.url);
      expect(refused.status).toBe(503);
      expect(JSON.stringify(await refused.json())).toMatch(/too many open MCP sessions/);
      await new Promise((r) => setTimeout(r, 7000));
      expect(server.openSessions()).toBe(0);
      const again = await initialize(server.url);
      expect(again.status).toBe(200);
      await again.body?.cancel();
    } finally {
      await server.close();
    }
  });

  it('event streams are capped; a closed one frees its place', async () => {
    const server = await serveApi(memory, { port: 0, maxEventStreams: 3, webRoot: null });
    try {
      const open = [];
      for (let i = 0; i < 3; i++) {
        const ac = new AbortController();
        const r = await fetch(`${server.url}/api/events/stream`, { signal: ac.signal });
        expect(r.status).toBe(200);
        open.push({ ac, r });
      }
      const refused = await fetch(`${server.url}/api/events/stream`);
      expect(refused.status).toBe(503);
      open[0].ac.abort();
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const r = await fetch(`${server.url}/api/events/stream`);
        status = r.status;
        await r.body?.cancel();
      }
      expect(status).toBe(200);
      for (const o of open.slice(1)) o.ac.abort();
    } finally {
      await server.close();
    }
  });

  it('a request body that trickles in is cut after the request timeout, in seconds', async () => {
    const server = await serveApi(memory, { port: 0, requestTimeoutMs: 1000, webRoot: null });
    try {
      const { port } = new URL(server.url);
      const started = Date.now();
      const closed = await new Promise<string>((resolve) => {
        const sock = connect(Number(port), '127.0.0.1', () => {
          sock.write(
            'POST /api/recall HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Skillsmith-CSRF: 1\r\nContent-Length: 1000\r\n\r\n{"goal": ',
          );
        });
        let got = '';
        sock.on('data', (d) => (got += d.toString()));
        sock.on('close', () => resolve(got));
        sock.on('error', () => undefined);
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(closed, closed).toMatch(/^$|408|400/);
    } finally {
      await server.close();
    }
  });

  it('GET routes write no events (the zip and the SKILL.md download)', async () => {
    const server = await serveApi(memory, { port: 0, webRoot: null });
    try {
      const before = await memory.parts.store!.lastEventId();
      const [skill] = await memory.skills.list();
      for (const path of ['/api/skills.zip', `/api/skills/${skill.name}/SKILL.md`]) {
        const r = await fetch(`${server.url}${path}`);
        expect(r.status).toBe(200);
        await r.arrayBuffer();
      }
      expect(await memory.parts.store!.lastEventId()).toBe(before);
    } finally {
      await server.close();
    }
  });
});

describe('terminal output and duplicate ids', () => {
  it('control bytes from bad input are escaped on the terminal; a duplicate id with other content is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-term-'));
    const file = join(dir, 'bad.jsonl');
    const rec = (goal: string) =>
      JSON.stringify({ session_id: 'same-id', goal, success: true, steps: [{ tool: 'get_order', result: 'ok' }] });
    writeFileSync(
      file,
      [rec('refund my order'), '{"session_id": "x\u001b[2J\u0007", "goal": 5}', rec('cancel everything instead')].join(
        '\n',
      ),
    );
    const child = spawn(process.execPath, cliArgs(['ingest', file, '--db', join(dir, 'm.db')]), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out).toContain(`${file}:2:`);
    expect(out).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: session id same-id was already used at line 1 by a session with different content`,
      ),
    );
  }, 60_000);
});

describe('PostgreSQL connection loss', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPgServer();
  });
  afterAll(() => server?.stop());

  it('an admin shutdown of a checked-out connection (57P01) is a logged line and a retry, never an unhandled error', async () => {
    const url = await server.createDatabase();
    const lines: string[] = [];
    const store = await openPgStore(url, { pollMs: 0, log: createLogger('warn', 'pg', (l) => lines.push(l)) });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // A connection checked out (as inside a transaction) and killed by the server between two statements.
      const held = await store.pool.connect();
      const { rows } = await held.query('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await new Promise((r) => setTimeout(r, 300));
      held.release(true);
      expect(lines.join('\n')).toMatch(/PostgreSQL connection lost \(57P01/);
      // Work goes on: every idle connection killed too, then a write and a read succeed (retried).
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      await store.insertSessions([plainSession('after')]);
      expect((await store.getSession('default', 'after'))?.goal).toBe('g');
    } finally {
      await admin.end();
      await store.close();
    }
  }, 60_000);
});
