// Issue #14, attacks 2 and 6: secrets and personal data planted in every field of a record never reach the
// store, a skill or an export; ids stay usable as keys; a record nested 6,000 levels deep costs only itself.
// Real JSONL files through `ingestFile`, a real SQLite store, the real pipeline.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/domain/redact.js';
import type { ToolCall } from '../../src/domain/types.js';
import { parseSkillMd, validateSkillMd } from '../../src/domain/skill-md/index.js';
import { openMemory } from '../../src/app/open-memory.js';
import { plainSession } from '../support/capture.js';
import { runCli, startCli } from '../support/surfaces.js';
import { tempDbPath } from '../support/tau.js';

const SECRETS = {
  openai: 'sk-proj-Zx81kQ2mW7vN4pR9tL3bY6cJ0aQ',
  github: 'ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R',
  email: 'alice.victim@example.com',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  gitlab: 'glpat-xR4nd0mT0k3nV4lu3zZ9',
  huggingface: 'hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789',
  ssn: '123-45-6789',
  entropy: 'Q2hhbmdlTWU9dHJ1ZSZ0b2tlbj1aeDgxa1EybVc3dk40cFI5',
};
const PGP = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0bVfkBCADPfJzY8dPq3kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4\nkL6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0kL2mN4oP6qR8sT0uV2wX4yZ6\n-----END PGP PRIVATE KEY BLOCK-----`;
const PGP_BODY = 'lQOYBF0bVfkBCADPfJzY8dPq3kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4';

function plantedRecord(i: number) {
  return {
    session_id: `run-${i}-${SECRETS.email}`,
    agent_id: `agent ${SECRETS.openai}`,
    source: `ci ${SECRETS.github}`,
    goal: `Please refund my order #W${1000 + i}, it arrived broken (my ssn is ${SECRETS.ssn})`,
    success: true,
    started_at: `soon ${SECRETS.openai}`,
    ended_at: SECRETS.email,
    steps: [
      {
        tool: 'find_customer',
        at: `t ${SECRETS.github}`,
        error: null,
        args: { zip: `${10000 + i}`, aws: SECRETS.awsSecret, note: `token ${SECRETS.gitlab}` },
        result: `{"customer_id": "cust_${i}", "hf": "${SECRETS.huggingface}"}`,
      },
      {
        tool: 'get_order',
        args: { order_id: `#W${1000 + i}`, blob: SECRETS.entropy },
        result: `{"status": "delivered", "key": ${JSON.stringify(PGP)}}`,
      },
      { tool: 'issue_refund', args: { order_id: `#W${1000 + i}` }, result: `{"ok": true, "ssn": "${SECRETS.ssn}"}` },
    ],
    meta: { owner: SECRETS.email, api: SECRETS.openai },
  };
}

function expectNoSecret(text: string, where: string) {
  for (const [kind, value] of Object.entries(SECRETS)) expect(text, `${kind} in ${where}`).not.toContain(value);
  expect(text, `pgp in ${where}`).not.toContain(PGP_BODY);
}

describe('secrets in every field', () => {
  it('are redacted or hashed before anything is stored, learned or exported; ids stay usable as keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-secrets-'));
    const file = join(dir, 'planted.jsonl');
    writeFileSync(file, Array.from({ length: 6 }, (_, i) => JSON.stringify(plantedRecord(i))).join('\n'));
    const db = tempDbPath('skillsmith-secrets-');
    const memory = await openMemory({ db, logLevel: 'silent', auditFile: null });
    const r = await memory.ingestFile(file);
    expect(r.problems).toEqual([]);
    expect(r.inserted).toBe(6);

    // What /api/sessions and /api/sessions/:id serve: the store's rows.
    const sessions = await memory.parts.store!.listSessions('default', { limit: 50, offset: 0 });
    expect(sessions).toHaveLength(6);
    for (const s of sessions) {
      const full = (await memory.parts.store!.getSession('default', s.id))!;
      expectNoSecret(JSON.stringify(full), `session ${s.id}`);
      expect(full.id).toMatch(/^sid_[0-9a-f]{20}$/);
      expect(full.agentId).toMatch(/^agent_[0-9a-f]{20}$/);
      expect(full.source).toMatch(/^source_[0-9a-f]{20}$/);
    }
    // The same raw id always maps to the same key: reporting an outcome by the raw id still finds the session.
    expect(memory.sessions.key(`run-0-${SECRETS.email}`)).toBe(memory.sessions.key(`run-0-${SECRETS.email}`));
    await expect(memory.reportOutcome(`run-0-${SECRETS.email}`, 'success')).resolves.toEqual({ credited: [] });
    // Re-ingesting the same file is still a no-op.
    expect((await memory.ingestFile(file)).inserted).toBe(0);

    await memory.synthesize();
    const skills = await memory.skills.list();
    expect(skills).toHaveLength(1);
    for (const s of skills) {
      expectNoSecret(JSON.stringify(s), `skill ${s.name}`);
      // Session references in SKILL.md are opaque ids.
      const parents = parseSkillMd(s.skillMd).parents?.episodic ?? [];
      expect(parents.length).toBeGreaterThan(0);
      for (const p of parents) expect(p).toMatch(/^ses-[0-9a-f]{16}$/);
    }
    const out = join(dir, 'export');
    const exported = await memory.skills.export(out);
    expect(exported.skipped).toEqual([]);
    for (const w of exported.written) {
      const text = readFileSync(w.path, 'utf8');
      expectNoSecret(text, w.path);
      expect(validateSkillMd(text).valid).toBe(true);
    }
    await memory.close();
  });

  it('a live session records ids, agent ids and sources through the same protection', async () => {
    const memory = await openMemory({ db: tempDbPath('skillsmith-secrets-'), logLevel: 'silent', auditFile: null });
    const s = await memory.startSession({
      goal: 'refund my order',
      id: `x-${SECRETS.email}`,
      agentId: SECRETS.openai,
      source: SECRETS.github,
    });
    expect(s.id).toMatch(/^sid_/);
    await s.call({ tool: 'get_order', args: { blob: SECRETS.entropy }, result: PGP });
    await s.call({ tool: `lookup_${SECRETS.github}`, args: {}, result: 'ok' });
    // A name no tool-calling API gives is refused, and the refusal does not repeat the secret it holds.
    await expect(s.call({ tool: `lookup ${SECRETS.github}`, args: {} })).rejects.toThrow(
      /^call: "lookup \[REDACTED:token\]/,
    );
    await s.end('success');
    const stored = (await memory.parts.store!.getSession('default', s.id))!;
    expectNoSecret(JSON.stringify(stored), 'live session');
    await memory.close();
  });

  it('redacting a SKILL.md at export keeps its YAML valid, whatever the frontmatter held', async () => {
    const { redactSkillMd } = await import('../../src/domain/skill-md/redact-skill-md.js');
    const text = `---\nname: refund-order\ndescription: Refund an order.\nlicense: MIT\nmetadata:\n  version: 1.0.0\n  parents-episodic: ${SECRETS.email} s2\n---\n\n# Refund\n\n1. Call \`x\`.\n\n## Edge cases\n- ${SECRETS.openai}\n`;
    const out = redactSkillMd(text, redactText);
    expect(out).not.toContain(SECRETS.email);
    expect(out).not.toContain(SECRETS.openai);
    expect(validateSkillMd(out).valid).toBe(true);
    expect(parseSkillMd(out).parents?.episodic).toEqual(['[REDACTED:email]', 's2']);
  });
});

describe('a record nested 6,000 levels deep', () => {
  it('is refused with file:line and reason; the valid records of the same file are stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-deep-'));
    const file = join(dir, 'deep.jsonl');
    const deep = `${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`;
    const good = (i: number) =>
      JSON.stringify({
        session_id: `ok-${i}`,
        goal: 'refund my order',
        success: true,
        steps: [{ tool: 'get_order', args: {}, result: 'ok' }],
      });
    writeFileSync(
      file,
      [
        good(1),
        `{"session_id": "deep", "goal": "g", "success": true, "steps": [{"tool": "t", "args": ${deep}}]}`,
        good(2),
      ].join('\n'),
    );
    const memory = await openMemory({ db: tempDbPath('skillsmith-deep-'), logLevel: 'silent', auditFile: null });
    const r = await memory.ingestFile(file);
    expect(r.inserted).toBe(2);
    expect(r.problems).toEqual([
      expect.objectContaining({ file, line: 2, reason: expect.stringMatching(/nested more than \d+ levels deep/) }),
    ]);
    await memory.close();
  });

  it('inside a JSON-array file: only that element is refused, and an oversized element too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-deep-'));
    const file = join(dir, 'array.json');
    const deep = '['.repeat(6000) + ']'.repeat(6000);
    const good = JSON.stringify({
      session_id: 'ok',
      goal: 'refund my order',
      success: true,
      steps: [{ tool: 'get_order', args: {}, result: 'ok' }],
    });
    const big = JSON.stringify({
      session_id: 'big',
      goal: 'g',
      success: true,
      steps: [{ tool: 't', args: {}, result: 'x'.repeat(5 * 1024 * 1024) }],
    });
    writeFileSync(
      file,
      `[${good}, {"session_id": "deep", "goal": "g", "success": true, "steps": [{"tool": "t", "args": {"v": ${deep}}}]}, ${big}]`,
    );
    const memory = await openMemory({ db: tempDbPath('skillsmith-deep-'), logLevel: 'silent', auditFile: null });
    const r = await memory.ingestFile(file);
    expect(r.inserted).toBe(1);
    expect(r.problems.map((p) => p.path)).toEqual(['[1]', '[2]']);
    expect(r.problems[1].reason).toMatch(/over the 4194304-byte limit/);
    await memory.close();
  });

  it('through the library: a deep or oversized call, or one call too many, is refused with its reason', async () => {
    const memory = await openMemory({
      db: tempDbPath('skillsmith-deep-'),
      logLevel: 'silent',
      auditFile: null,
      config: { capture: { maxCallsPerSession: 2 } },
    });
    const s = await memory.startSession({ goal: 'refund my order' });
    let deep: unknown = 1;
    for (let i = 0; i < 6000; i++) deep = { a: deep };
    await expect(s.call({ tool: 't', args: deep as Record<string, unknown> })).rejects.toThrow(
      /args is nested more than/,
    );
    await expect(s.call({ tool: 't', result: 'x'.repeat(5 * 1024 * 1024) })).rejects.toThrow(
      /over the 4194304-byte limit/,
    );
    await s.call({ tool: 't' });
    await s.call({ tool: 't' });
    await expect(s.call({ tool: 't' })).rejects.toThrow(/limit per session/);
    expect((await memory.parts.store!.getSession('default', s.id))!.calls).toHaveLength(2);
    const r = await memory.ingest([
      plainSession('fine'),
      plainSession('deep', { labels: deep as Record<string, unknown> }),
    ]);
    expect(r.inserted).toBe(1);
    expect(r.problems).toEqual([{ index: 1, sessionId: 'deep', reason: expect.stringMatching(/labels is nested/) }]);
    await memory.close();
  });

  it('through the library: whole sessions near the limits are judged exactly, whatever the quick bound says', async () => {
    const memory = await openMemory({
      db: tempDbPath('skillsmith-limits-'),
      logLevel: 'silent',
      auditFile: null,
      config: { capture: { maxRecordBytes: 64 * 1024 } },
    });
    const session = (id: string, calls: ToolCall[]) => plainSession(id, { calls });
    const call = (args: unknown, result: string): ToolCall => ({
      position: 0,
      tool: 't',
      args: args as Record<string, unknown>,
      result,
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    });
    // Arguments nested 63 levels: the session around them is deeper than 64, the arguments are not.
    let args: unknown = 'x';
    for (let i = 0; i < 63; i++) args = { a: args };
    // Quotes take two bytes each in JSON: 25,000 of them are 50 kB, under the limit, though 6 bytes a character
    // (the quick bound) would be over it.
    const quoted = '"'.repeat(25_000);
    const big = session('big', [call({}, 'y'.repeat(70_000))]);
    const r = await memory.ingest([
      session('nested-args', [call(args, 'ok')]),
      session('quoted', [call({}, quoted)]),
      big,
    ]);
    expect(r.inserted).toBe(2);
    expect(r.problems).toEqual([
      {
        index: 2,
        sessionId: 'big',
        reason: `session is ${Buffer.byteLength(JSON.stringify(big))} bytes, over the 65536-byte limit`,
      },
    ]);
    expect((await memory.parts.store!.getSession('default', 'quoted'))!.calls[0]!.result).toBe(quoted);
    await memory.close();
  });

  it('redacts a label every time it is ingested, not only the first', async () => {
    const memory = await openMemory({ db: tempDbPath(), logLevel: 'silent', auditFile: null });
    const labelled = (id: string) =>
      plainSession(id, { goal: 'look up an order', labels: { note: `key ${SECRETS.openai}`, domain: 'retail' } });
    await memory.ingest([labelled('first'), labelled('second')]);
    await memory.ingest([labelled('third')]);
    for (const id of ['first', 'second', 'third']) {
      const stored = await memory.parts.store!.getSession('default', id);
      expect(stored!.labels).toEqual({ note: 'key [REDACTED:api_key]', domain: 'retail' });
    }
    await memory.close();
  });

  it('stores the labels of an ingested session redacted: a secret in a label never reaches the database file', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    await memory.ingest([
      plainSession('labelled', {
        goal: 'look up an order',
        labels: { family: 'retail', note: `key ${SECRETS.openai}`, customer: { email: 'jane.roe@example.org' } },
      }),
    ]);
    const stored = await memory.parts.store!.getSession('default', 'labelled');
    expect(stored!.labels!.family).toBe('retail');
    expect(JSON.stringify(stored!.labels)).not.toContain(SECRETS.openai);
    expect(JSON.stringify(stored!.labels)).not.toContain('jane.roe@example.org');
    await memory.close();
    // Closed, the write-ahead log is checkpointed into the file itself.
    expect(readFileSync(db).toString('latin1')).not.toContain(SECRETS.openai);
  });
});

describe('a bad record is named without quoting a piece of the secret it holds', () => {
  it('on the terminal, in --json and in a REST ingest answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-secrets-'));
    const db = join(dir, 'memory.db');
    const file = join(dir, 'bad.jsonl');
    const lines = [
      JSON.stringify({ session_id: 'ok', goal: 'deploy', success: true, steps: [{ tool: 'deploy', args: {} }] }),
      // Not JSON: the parser's message quotes the characters around the fault.
      `{"session_id": "a", "goal": "deploy", "password": ${SECRETS.github}}`,
      SECRETS.openai,
      // A tool name the reason quotes: the token starts before its 40-character cut and ends after it.
      JSON.stringify({
        session_id: 'b',
        goal: 'deploy',
        success: true,
        steps: [{ tool: `run the deploy with ${SECRETS.github}`, args: {} }],
      }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const pieces = [SECRETS.github.slice(0, 8), SECRETS.github.slice(4, 14), SECRETS.openai.slice(0, 10)];
    const expectNoPiece = (text: string, where: string) => {
      for (const p of pieces) expect(text, `${p} in ${where}`).not.toContain(p);
    };

    const text = runCli(['ingest', file, '--db', db], dir);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/bad\.jsonl:2: not valid JSON/);
    expect(text.stderr).toMatch(/bad\.jsonl:3: not valid JSON/);
    expect(text.stderr).toMatch(/bad\.jsonl:4: .*is not a tool name/);
    expectNoPiece(text.stdout + text.stderr, 'ingest');
    const json = runCli(['ingest', file, '--json', '--db', db], dir);
    expect(JSON.parse(json.stdout)[0].problems).toHaveLength(3);
    expectNoPiece(json.stdout + json.stderr, 'ingest --json');

    const server = await startCli(['serve', '--port', '0', '--db', db, '--log-level', 'error']);
    try {
      const res = await fetch(`${server.url}/api/ingest?name=bad.jsonl`, {
        method: 'POST',
        headers: { 'X-Skillsmith-CSRF': '1' },
        body: readFileSync(file, 'utf8'),
      });
      expect(res.status).toBe(422);
      expectNoPiece(await res.text(), 'POST /api/ingest');
      const body = await fetch(`${server.url}/api/sessions`, {
        method: 'POST',
        headers: { 'X-Skillsmith-CSRF': '1', 'Content-Type': 'application/json' },
        body: `{"goal": "deploy", "id": ${SECRETS.openai}}`,
      });
      expect(body.status).toBe(400);
      expectNoPiece(await body.text(), 'POST /api/sessions');
    } finally {
      await server.stop();
    }
  });
});
