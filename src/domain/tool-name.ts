/**
 * What a tool may be called. A tool's name reaches a skill's steps (in code spans), its `tools-required` (a
 * space-separated list) and the planner's prompt, and it comes from logs and agents like any other untrusted
 * text. The APIs through which models call tools accept letters, digits, `_` and `-` (OpenAI, Anthropic,
 * Gemini), MCP adds `.`, and frameworks prefix a server or namespace with `:`, `/` or `@`
 * (`mcp__github__create_issue`, `default_api:run_shell_command`): none of them makes a name with a space, a
 * backtick, a quote or markup, each of which would break or smuggle text into a procedure. Pure.
 */
import { redactText } from './redact.js';
import { keepFirst } from '../support/text.js';

/** The longest tool name stored (the capture limits since the first release). */
export const MAX_TOOL_NAME_LENGTH = 200;

const TOOL_NAME = /^[\p{L}\p{N}_.:/@-]+$/u;
const NOT_IN_NAME = /[^\p{L}\p{N}_.:/@-]/gu;

/** The characters a tool name may hold, as the reasons below say them. */
export const TOOL_NAME_CHARACTERS = 'letters, digits and _ - . : / @';

/** Why `name` cannot be a tool's name, or null when it can. */
export function toolNameProblem(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0) return 'a tool name must be a non-empty string';
  if (name.length > MAX_TOOL_NAME_LENGTH)
    return `a tool name is at most ${MAX_TOOL_NAME_LENGTH} characters (this one has ${name.length})`;
  if (TOOL_NAME.test(name)) return null;
  const odd = [...new Set(name.match(NOT_IN_NAME) ?? [])].slice(0, 5).map(shown);
  // Quoted as redacted: a name is untrusted text, and a reason reaches logs and answers. Redacted whole, then
  // cut: a secret cut first is too short for its rule to see, and its first characters would be quoted.
  const redacted = redactText(name);
  const head = redacted.length > 40 ? `${keepFirst(redacted, 40)}…` : redacted;
  return `${JSON.stringify(head)} is not a tool name: a tool name holds ${TOOL_NAME_CHARACTERS} (what tool-calling APIs accept), and this one has ${odd.join(', ')}`;
}

function shown(ch: string): string {
  if (ch === ' ') return 'a space';
  if (/\s/u.test(ch)) return `whitespace (U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')})`;
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f)
    return `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  return JSON.stringify(ch);
}
