// The Python client (clients/python, standard library only) against the real REST server: a Python agent
// records sessions, the server learns from them, recalls the skill and takes feedback.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { serveApi, type RunningServer } from '../src/surfaces/http/server.js';
import { ROOT } from './support/surfaces.js';

const PYTHON = process.env.PYTHON ?? 'python3';

/** Runs python without blocking this process's event loop (the server under test lives in it). */
function runPython(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let tmp: string;
let memory: Memory;
let server: RunningServer;

beforeAll(async () => {
  // Python is part of the test bed: no python3 is a failure, never a skip.
  const version = spawnSync(PYTHON, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${PYTHON} is needed for the Python client test (set PYTHON to its path)`);
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-py-'));
  memory = await openMemory({
    db: join(tmp, 'm.db'),
    logLevel: 'silent',
    config: { synthesis: { auto: { afterSessions: 4 } } },
  });
  server = await serveApi(memory, { port: 0, webRoot: null });
});

afterAll(async () => {
  await server?.close();
  await memory?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Python client against the real server', () => {
  it('records sessions, the server learns a skill from them, recalls it and applies feedback', async () => {
    const run = await runPython([join(ROOT, 'test', 'fixtures', 'python-client-run.py'), server.url], {
      PYTHONPATH: join(ROOT, 'clients', 'python'),
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);

    // Stored, with each call once (the retried position was a no-op) and the reported outcome.
    expect(out.sessions).toHaveLength(4);
    expect(out.retry).toMatchObject({ position: 1, recorded: false });
    const first = (await memory.parts.store!.getSession(memory.namespace, out.sessions[0]))!;
    expect(first.goal).toBe('Cancel my pending order #W1001 because I no longer need it');
    expect(first.calls.map((c) => c.tool)).toEqual([
      'find_user_id_by_email',
      'get_order_details',
      'cancel_pending_order',
    ]);
    expect(first.calls[1].result).toContain('python-result-0');
    expect(first.outcome).toBe('success');
    expect(first.agentId).toBe('py-agent');
    expect(out.end_again).toBe('success');
    expect(out.flip).toBe(409);
    expect(out.missing_status).toBe(404);

    // Learned from the four sessions, recalled for a new goal, and the feedback moved its eta.
    expect(out.recall.skills.length).toBeGreaterThan(0);
    const skill = (await memory.skills.get(out.recall.skills[0].name))!;
    expect(skill.sourceSessions.sort()).toEqual([...out.sessions].sort());
    expect(skill.toolsRequired).toEqual(expect.arrayContaining(['get_order_details', 'cancel_pending_order']));
    expect(out.recall.context).toContain('cancel_pending_order');
    expect(out.explain_parents).toBe(4);
    expect(out.feedback.after).toBeGreaterThan(out.feedback.before);
    expect(skill.eta).toBeCloseTo(out.feedback.after, 10);
    const history = await memory.parts.store!.feedbackHistory(skill.id);
    expect(history.map((f) => f.signal)).toContain('user.positive');
  }, 180_000);

  it('every failure of the transport is a SkillsmithError: a closed connection, a timeout, an answer that is not JSON', async () => {
    // A server that misbehaves in each way a proxy, a crashed process or another service on the port can.
    const odd = createServer((req, res) => {
      const path = req.url ?? '';
      if (path.startsWith('/close/')) return req.socket.destroy();
      if (path.startsWith('/hang/')) return;
      if (path.startsWith('/html/'))
        return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>proxy</html>');
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('["not", "an", "object"]');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const port = (odd.address() as AddressInfo).port;
    const script = [
      'import json, sys',
      'from skillsmith_client import Client, SkillsmithError',
      'out = {}',
      'for case in ["close", "hang", "html", "list"]:',
      `    c = Client("http://127.0.0.1:${port}/" + case, timeout=1)`,
      '    try:',
      '        c.recall("rotate the keys", tools=["list_keys"])',
      '        out[case] = "no error"',
      '    except SkillsmithError as e:',
      '        out[case] = [e.status, str(e)[:200]]',
      '    except Exception as e:',
      '        out[case] = "escaped: " + type(e).__name__',
      'print(json.dumps(out))',
    ].join('\n');
    try {
      const r = await runPython(['-c', script], { PYTHONPATH: join(ROOT, 'clients', 'python') });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Record<string, [number, string] | string>;
      expect(out.close).toEqual([0, expect.stringMatching(/^no answer from .*RemoteDisconnected/)]);
      expect(out.hang).toEqual([0, expect.stringMatching(/^no answer from .*timed out/)]);
      expect(out.html).toEqual([200, expect.stringMatching(/is not JSON: '<html>proxy<\/html>'/)]);
      expect(out.list).toEqual([500, '500: ["not", "an", "object"]']);
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  }, 60_000);

  it('installs with pip from its folder (no dependencies, no network)', () => {
    const hasPip = spawnSync(PYTHON, ['-m', 'pip', '--version'], { encoding: 'utf8' });
    if (hasPip.status !== 0)
      throw new Error(`${PYTHON} -m pip is needed to test the install (Debian: apt-get install python3-pip)`);
    const target = mkdtempSync(join(tmpdir(), 'skillsmith-pip-'));
    try {
      const pip = spawnSync(
        PYTHON,
        ['-m', 'pip', 'install', '--no-index', '--target', target, join(ROOT, 'clients', 'python')],
        { encoding: 'utf8', timeout: 120_000 },
      );
      expect(pip.status, pip.stderr + pip.stdout).toBe(0);
      const check = spawnSync(PYTHON, ['-c', 'import skillsmith_client, sys; print(skillsmith_client.__version__)'], {
        encoding: 'utf8',
        cwd: tmpdir(),
        env: { ...process.env, PYTHONPATH: target },
      });
      expect(check.stdout.trim()).toBe('0.1.0');
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  }, 180_000);
});
