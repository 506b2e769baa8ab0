import type { Session } from './types.js';
import { maskPersonalFields } from './personal-data.js';
import { quoteUntrusted } from './untrusted-text.js';
import { keepFirst } from '../support/text.js';

export interface EvidenceTrace {
  sessionId: string;
  outcome: Session['outcome'];
  /** Redacted, capped text of the goal and the calls: what a model and the verifier see. */
  text: string;
  tools: string[];
}

export interface EvidenceRules {
  evidenceLimit: number;
  traceCharCap: number;
  thinkTools: readonly string[];
  redact: (text: string) => string;
}

/**
 * Picks the most representative sessions (highest agreement with the procedure, then most recent) and
 * renders each as a capped, redacted trace. Nothing unredacted leaves this function.
 */
export function gatherEvidence(
  candidates: { session: Session; agreement: number }[],
  rules: EvidenceRules,
): EvidenceTrace[] {
  const ranked = [...candidates].sort(
    (a, b) =>
      b.agreement - a.agreement ||
      (b.session.seq ?? 0) - (a.session.seq ?? 0) ||
      a.session.id.localeCompare(b.session.id),
  );
  return ranked.slice(0, rules.evidenceLimit).map(({ session }) => renderTrace(session, rules));
}

export function renderTrace(session: Session, rules: Omit<EvidenceRules, 'evidenceLimit'>): EvidenceTrace {
  const think = new Set(rules.thinkTools);
  // Redact before cutting, so that a cut never leaves half a secret that no pattern recognises. Goals,
  // arguments, results and errors are untrusted: instruction-like sentences are neutralised before the
  // trace reaches a model or the verifier.
  const r = (text: string) => quoteUntrusted(rules.redact(text));
  const lines = [`goal: ${oneLine(r(session.goal), 240)}`];
  const tools: string[] = [];
  for (const c of session.calls) {
    if (think.has(c.tool)) continue;
    tools.push(c.tool);
    // A model reads these: the fields that hold a person's details (a name, a birth date, an address) go masked.
    const args = oneLine(r(JSON.stringify(maskPersonalFields(c.args ?? {}))), 120);
    const result = maskPersonalFields(c.result) as string;
    const res = c.ok ? oneLine(r(result), 80) : `ERROR ${oneLine(r(c.error ?? result), 80)}`;
    lines.push(`${c.position}. ${c.tool}(${args}) -> ${res}`);
  }
  lines.push(`outcome: ${session.outcome}`);
  let text = r(lines.join('\n'));
  if (text.length > rules.traceCharCap) text = `${keepFirst(text, rules.traceCharCap)}… (truncated)`;
  return { sessionId: session.id, outcome: session.outcome, text, tools };
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${keepFirst(t, max)}…` : t;
}
