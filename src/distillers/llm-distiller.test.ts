import { describe, expect, it } from 'vitest';
import { renderTrace } from '../domain/evidence.js';
import { redactText } from '../domain/redact.js';
import type { Session } from '../domain/types.js';
import type { ChatModel } from '../llm/chat-model.js';
import { EndpointUnreachableError } from '../errors/endpoint-unreachable-error.js';
import type { DistillInput } from './distiller.js';
import {
  buildDistillPrompt,
  draftFromIntermediate,
  LlmDistiller,
  LlmUnavailableError,
  MalformedDraftError,
} from './llm-distiller.js';

const TOOLS = ['lookup_account', 'list_invoices', 'send_invoice_copy'];

function session(i: number): Session {
  return {
    id: `s${i}`,
    namespace: 'default',
    goal: `Send me a copy of invoice ${i} please, account a${i}@example.com`,
    outcome: 'success',
    reward: 1,
    agentId: null,
    source: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: null,
    calls: TOOLS.map((tool, position) => ({
      position,
      tool,
      args: { id: `x${i}` },
      result: 'ok',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    })),
  };
}

function input(extra: Partial<DistillInput> = {}): DistillInput {
  const sessions = [0, 1, 2].map(session);
  const rules = { traceCharCap: 600, thinkTools: [], redact: redactText };
  return {
    clusterId: 'c1',
    spans: sessions.map((s) => ({ sessionId: s.id, start: 0, end: 3, calls: s.calls })),
    successes: sessions,
    failures: [],
    goals: sessions.map((s) => redactText(s.goal)),
    evidence: sessions.map((s) => renderTrace(s, rules)),
    goalWordWeight: () => 1,
    toolWeight: () => 1,
    takenNames: new Set(),
    stats: { successes: 3, succeeded: 3, followers: 3, sessions: 3 },
    ...extra,
  };
}

const LIMITS = { maxBodyLines: 500, maxBodyChars: 20_000 };
const doc = (
  body: string,
  fm = 'name: send-invoice-copy\nwhen_to_use: Send a copy of an invoice. Use when the user asks for an invoice.\ntools_required: [lookup_account, list_invoices, send_invoice_copy]',
) => `---\n${fm}\n---\n${body}`;

describe('draftFromIntermediate: the deterministic translation of the model answer', () => {
  it('reads the tool sequence from the backticked tools of the numbered steps, in order', () => {
    const d = draftFromIntermediate(
      doc(
        '# Send Invoice Copy\n\n1. Call `lookup_account` with the `email`.\n2. Use `list_invoices` to find it.\n3. Call `send_invoice_copy`.\n\n## Edge cases\n- Call `lookup_account` again if the email changed.\n',
      ),
      input(),
      LIMITS,
    )!;
    expect(d.toolSequence).toEqual(TOOLS);
    expect(d.toolsRequired).toEqual(TOOLS);
    expect(d.kind).toBe('playbook');
    expect(d.steps.every((s) => s.support === 1 && !s.conditional)).toBe(true);
  });

  it('counts known tools written without backticks, marks worded-optional steps conditional', () => {
    const d = draftFromIntermediate(
      doc(
        '# T\n\n1. lookup_account for the user.\n2. If needed, list_invoices.\n3. send_invoice_copy.\n\n## Edge cases\n- none\n',
      ),
      input(),
      LIMITS,
    )!;
    expect(d.toolSequence).toEqual(TOOLS);
    expect(d.steps.find((s) => s.tool === 'list_invoices')!.conditional).toBe(true);
  });

  it('adds a title when the body has none, and unions tools_required with the steps', () => {
    const d = draftFromIntermediate(
      doc(
        '1. Call `lookup_account`.\n2. Call `send_invoice_copy`.\n\n## Edge cases\n- x\n',
        'name: send-invoice-copy\nwhen_to_use: Send a copy.\ntools_required: []',
      ),
      input(),
      LIMITS,
    )!;
    expect(d.body.startsWith('# Send Invoice Copy\n')).toBe(true);
    expect(d.toolsRequired).toEqual(['lookup_account', 'send_invoice_copy']);
  });

  it('normalises an invalid name and cleans the description', () => {
    const d = draftFromIntermediate(
      doc(
        '# T\n1. Call `lookup_account`.\n## Edge cases\n- x',
        'name: Send Invoice Copy\nwhen_to_use: "Send <a> copy."\ntools_required: [lookup_account]',
      ),
      input(),
      LIMITS,
    )!;
    expect(d.name).toBe('send-invoice-copy');
    expect(d.whenToUse).toBe('Send a copy.');
  });

  it('SKIP variants are null; chatter before the frontmatter is tolerated', () => {
    expect(draftFromIntermediate('SKIP', input(), LIMITS)).toBeNull();
    expect(draftFromIntermediate('SKIP.', input(), LIMITS)).toBeNull();
    expect(draftFromIntermediate('```\nSKIP\n```', input(), LIMITS)).toBeNull();
    const d = draftFromIntermediate(
      `Here is the skill:\n${doc('# T\n1. Call `lookup_account`.\n## Edge cases\n- x')}`,
      input(),
      LIMITS,
    );
    expect(d?.name).toBe('send-invoice-copy');
  });

  it('rejects what cannot become a draft, with the reason', () => {
    const reason = (text: string, i = input()) => {
      try {
        draftFromIntermediate(text, i, LIMITS);
      } catch (e) {
        expect(MalformedDraftError.isInstance(e)).toBe(true);
        return (e as MalformedDraftError).reason;
      }
      return 'accepted';
    };
    expect(reason('')).toMatch(/empty/);
    expect(reason('---\nwhen_to_use: x\n---\n# T\n1. a')).toMatch(/name: missing/);
    expect(reason('---\nname: a-b\n---\n# T\n1. a')).toMatch(/when_to_use: missing/);
    expect(reason(doc('# T\nJust prose, no steps.'))).toMatch(/no numbered steps/);
    expect(reason(doc('# T\n1. Think hard.\n', 'name: a-b\nwhen_to_use: x\ntools_required: []'))).toMatch(
      /names no tool/,
    );
    expect(
      reason(doc('# T\n1. Call `lookup_account`.'), input({ takenNames: new Set(['send-invoice-copy']) })),
    ).toMatch(/name clash/);
  });
});

describe('buildDistillPrompt', () => {
  it('holds the allowed tools, the taken names (capped) and only redacted evidence', () => {
    const taken = new Set(Array.from({ length: 5 }, (_, i) => `skill-${i}`));
    const [system, user] = buildDistillPrompt(input({ takenNames: taken }), { redact: redactText, maxTakenNames: 3 });
    expect(system.role).toBe('system');
    expect(user.content).toContain('`lookup_account`, `list_invoices`, `send_invoice_copy`');
    expect(user.content).toContain('skill-0, skill-1, skill-2, and 2 more');
    expect(user.content).not.toMatch(/@example\.com/);
  });
});

describe('LlmDistiller with a stand-in chat model', () => {
  const model = (answer: () => Promise<string>): ChatModel => ({
    id: 'fake:m',
    endpoint: 'http://fake/v1',
    complete: answer,
    check: async () => {},
  });

  it('makes no call when there is no evidence to ground a draft', async () => {
    let calls = 0;
    const d = new LlmDistiller({
      model: model(async () => {
        calls++;
        return 'SKIP';
      }),
      temperature: 0.1,
      maxTokens: 100,
    });
    expect(await d.distil(input({ evidence: [] }))).toBeNull();
    expect(calls).toBe(0);
  });

  it('wraps any back-end failure in LlmUnavailableError with the cause', async () => {
    const down = new EndpointUnreachableError('POST http://fake/v1/chat/completions', 'ECONNREFUSED');
    const d = new LlmDistiller({ model: model(async () => Promise.reject(down)), temperature: 0.1, maxTokens: 100 });
    const e = await d.distil(input()).catch((x) => x);
    expect(LlmUnavailableError.isInstance(e)).toBe(true);
    expect(e.cause).toBe(down);
    expect(e.reason).toBe('ENDPOINT_UNREACHABLE');
  });
});
