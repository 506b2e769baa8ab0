// A SQLite memory whose write lock another process holds longer than a write waits (5 s: a long pass or import
// elsewhere) answers as a memory that is away for a moment: REST 503 with Retry-After and what to do, MCP a tool
// error with the code STORE_BUSY saying to send the call again, the CLI what holds it and to run again; SQLite's
// own words ("database is locked", a 500) said neither.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { serveMcpHttp } from '../src/surfaces/mcp/http.js';
import { runBuiltCli } from './support/built-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-busy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another process's long write: the file's write lock, held until `release`. */
function holdWriteLock(db: string): () => void {
  const other = new Database(db);
  other.exec('BEGIN IMMEDIATE');
  return () => {
    other.exec('ROLLBACK');
    other.close();
  };
}

describe('a SQLite memory another process is writing', () => {
  it('REST: a write that waited out the lock is a 503 saying to send it again, and nothing is stored', async () => {
    const db = join(dir, 'rest.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    const server = await serveApi(memory, { port: 0, webRoot: null });
    try {
      const release = holdWriteLock(db);
      let res: Response;
      try {
        res = await fetch(`${server.url}/api/sessions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
          body: JSON.stringify({ goal: 'Cancel my pending order', id: 'busy-1' }),
        });
      } finally {
        release();
      }
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      const { error } = (await res.json()) as { error: string };
      expect(error).toContain('being written by another process');
      expect(error).toContain('send the request again');
      // Sent again once the other write is done, it goes through.
      const again = await fetch(`${server.url}/api/sessions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ goal: 'Cancel my pending order', id: 'busy-1' }),
      });
      expect(again.status).toBe(201);
    } finally {
      await server.close();
      await memory.close();
    }
  }, 30_000);

  it('CLI: says another process is writing and to run the command again (exit 1)', async () => {
    const db = join(dir, 'cli.db');
    await (await openMemory({ db, logLevel: 'silent' })).close();
    const release = holdWriteLock(db);
    let r: ReturnType<typeof runBuiltCli>;
    try {
      r = runBuiltCli(['facts', 'add', 'Orders ship within two days', '--db', db], { cwd: dir });
    } finally {
      release();
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('being written by another process');
    expect(r.stderr).toContain('run the command again once that write is done');
    expect(r.stderr).not.toContain('database is locked');
  }, 30_000);

  it('MCP: a tool error saying to send the call again, with the code STORE_BUSY, and nothing is stored', async () => {
    const db = join(dir, 'mcp.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    const server = await serveMcpHttp(memory, { port: 0 });
    const client = new Client({ name: 'skillsmith-busy-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      await client.listTools();
      const call = () =>
        client.callTool({
          name: 'record_tool_call',
          arguments: { session_id: 'busy-mcp-1', goal: 'Cancel my pending order', tool: 'get_order_details' },
        }) as Promise<CallToolResult>;
      const release = holdWriteLock(db);
      let r: CallToolResult;
      try {
        r = await call();
      } finally {
        release();
      }
      expect(r.isError).toBe(true);
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain('being written by another process');
      expect(text).toContain('send the call again');
      expect(text).not.toContain('database is locked');
      expect(r._meta?.['skillsmith/error']).toEqual({ error: text, code: 'STORE_BUSY' });
      expect(await memory.sessions.get('busy-mcp-1')).toBeNull();
      // Sent again once the other write is done, it goes through.
      const again = await call();
      expect(again.isError).toBeFalsy();
      expect((await memory.sessions.get('busy-mcp-1'))?.calls).toHaveLength(1);
    } finally {
      await client.close();
      await server.close();
      await memory.close();
    }
  }, 30_000);
});
