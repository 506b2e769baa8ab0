// Test-only (a *.case.ts file is never built): the tool-call builder the domain, distiller and eval unit tests share.
import type { ToolCall } from './types.js';

/** A recorded tool call for unit tests: successful unless `ok` is false (then its result is also its error). */
export function toolCall(
  position: number,
  tool: string,
  args: Record<string, unknown> = {},
  result = '',
  ok = true,
): ToolCall {
  return { position, tool, args, result, ok, error: ok ? null : result, durationMs: null, at: null };
}
