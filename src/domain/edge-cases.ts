import type { Session } from './types.js';

export interface EdgeCaseInput {
  /** Successful sessions of the cluster (their failed calls show recoveries). */
  successes: Session[];
  /** Sessions of the cluster that failed: counter-examples. */
  failures: Session[];
  procedureTools: readonly string[];
  thinkTools: readonly string[];
  /** Redacts secrets and personal data from any text that reaches the skill. */
  redact: (text: string) => string;
  maxItems?: number;
}

export interface EdgeCase {
  kind: 'recovery' | 'avoid' | 'conditional';
  tool: string;
  text: string;
  /** Sessions that show it. */
  count: number;
}

/**
 * Turns observed failure-then-recovery into "if X fails ..." items and tools that only failed sessions used
 * into "do not ..." items. Deterministic; every quoted error is redacted and shortened.
 */
export function findEdgeCases(input: EdgeCaseInput): EdgeCase[] {
  const think = new Set(input.thinkTools);
  const recoveries = new Map<string, { count: number; error: string; retried: number; next: Map<string, number> }>();
  for (const s of input.successes) {
    const seen = new Set<string>();
    s.calls.forEach((c, i) => {
      if (c.ok || think.has(c.tool) || seen.has(c.tool)) return;
      seen.add(c.tool);
      let r = recoveries.get(c.tool);
      if (!r) recoveries.set(c.tool, (r = { count: 0, error: '', retried: 0, next: new Map() }));
      r.count++;
      if (!r.error) r.error = shortError(c.error ?? c.result, input.redact);
      const later = s.calls.slice(i + 1).filter((x) => x.ok && !think.has(x.tool));
      if (later.some((x) => x.tool === c.tool)) r.retried++;
      const next = later[0]?.tool;
      if (next && next !== c.tool) r.next.set(next, (r.next.get(next) ?? 0) + 1);
    });
  }
  const items: EdgeCase[] = [];
  for (const [tool, r] of recoveries) {
    const err = r.error ? ` (seen: "${r.error}")` : '';
    const nextTool = [...r.next.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
    let action: string;
    if (r.retried * 2 >= r.count) {
      action = nextTool && nextTool !== tool ? `check the inputs (e.g. with \`${nextTool}\`) and retry \`${tool}\`` : `correct the arguments and retry \`${tool}\``;
    } else if (nextTool) action = `continue with \`${nextTool}\` instead`;
    else action = 'stop and report the error to the user';
    items.push({ kind: 'recovery', tool, count: r.count, text: `If \`${tool}\` fails${err}, ${action}.` });
  }

  const inSuccess = countSessionsUsing(input.successes, think);
  const inFailure = countSessionsUsing(input.failures, think);
  const nf = input.failures.length;
  const ns = input.successes.length;
  for (const [tool, k] of inFailure) {
    const okShare = (inSuccess.get(tool) ?? 0) / Math.max(1, ns);
    if (nf >= 2 && k / nf >= 0.5 && okShare <= 0.1 && !input.procedureTools.includes(tool)) {
      items.push({
        kind: 'avoid',
        tool,
        count: k,
        text: `Do not call \`${tool}\` for this task: ${k} of ${nf} failed sessions did, and ${okShare === 0 ? 'no' : 'almost no'} successful one did.`,
      });
    }
  }
  items.sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool));
  return items.slice(0, input.maxItems ?? 6);
}

function countSessionsUsing(sessions: Session[], think: Set<string>): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of sessions) for (const t of new Set(s.calls.filter((c) => !think.has(c.tool)).map((c) => c.tool))) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function shortError(text: string, redact: (t: string) => string): string {
  const first = redact(text).split('\n')[0].replace(/[<>"`]/g, '').replace(/\s+/g, ' ').trim();
  return first.length > 80 ? `${first.slice(0, 77)}...` : first;
}
