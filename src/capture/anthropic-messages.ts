import type { ToolCall } from '../domain/types.js';
import { contentText, ERROR_RESULT, isObject, type JsonObject, parseArgs, toolResultText } from './common.js';
import {
  type ConversationOptions,
  type ConversationRecord,
  type ConversationTasks,
  conversationSessions,
} from './conversation-tasks.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import type { BuiltSession } from './openai-agents.js';
import { InputError } from '../errors/input-error.js';

/**
 * Anthropic Messages logs, in the same containers as the OpenAI ones (one `{"messages": [...]}` per line, or a
 * JSON array of messages): assistant `tool_use` blocks (also `server_tool_use` / `mcp_tool_use`) answered by
 * `tool_result` blocks (`mcp_tool_result`) in the next user turn, paired by `tool_use_id` (by order when an
 * id repeats or is missing). `is_error: true` marks a failed call; without the flag, a result that reads as an
 * error does. The goal is the first user text (a user turn holding only tool results is not a goal); a
 * conversation of several requests splits into tasks (task-splitter.ts).
 */
export interface AnthropicConversation extends ConversationRecord {
  system?: unknown;
}

const USE_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
const RESULT_BLOCKS = new Set(['tool_result', 'mcp_tool_result']);
const ANTHROPIC_BLOCKS = new Set([...USE_BLOCKS, ...RESULT_BLOCKS, 'thinking', 'redacted_thinking']);

/**
 * A server tool's result block (`web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`...):
 * the API runs the tool and puts its result in the same assistant message, after the `server_tool_use`.
 */
function isServerResult(type: string): boolean {
  return type.endsWith('_tool_result') && !RESULT_BLOCKS.has(type);
}

/** A server tool result as text: search hits as `title url` lines, an error as its code, else the content. */
function serverResultText(content: unknown): string {
  if (Array.isArray(content) && content.every((c) => isObject(c) && ('url' in c || 'title' in c)))
    return content
      .map((c) => [(c as JsonObject).title, (c as JsonObject).url].filter((x) => typeof x === 'string').join(' '))
      .join('\n');
  if (isObject(content) && typeof content.error_code === 'string') return `error: ${content.error_code}`;
  return contentText(content);
}

/** Marks only the Anthropic shape has: tool_use / tool_result / thinking content blocks. */
export function hasAnthropicMarkers(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      Array.isArray(m.content) &&
      m.content.some((b) => isObject(b) && typeof b.type === 'string' && ANTHROPIC_BLOCKS.has(b.type)),
  );
}

/** Reads an Anthropic conversation into the tasks of `tasks`. Throws (the record is rejected) on a malformed message. */
function readAnthropic(conv: AnthropicConversation, limits: CaptureLimits, tasks: ConversationTasks): void {
  const { split } = tasks;
  conv.messages.forEach((raw, index) => {
    if (!isObject(raw)) throw new InputError(`messages[${index}]: not an object`);
    const role = raw.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system')
      throw new InputError(`messages[${index}].role: expected "user" or "assistant", not ${JSON.stringify(role)}`);
    const blocks: unknown[] =
      typeof raw.content === 'string'
        ? [{ type: 'text', text: raw.content }]
        : Array.isArray(raw.content)
          ? raw.content
          : [];
    if (raw.content != null && typeof raw.content !== 'string' && !Array.isArray(raw.content))
      throw new InputError(`messages[${index}].content: must be a string or an array of blocks`);
    let text = '';
    let sawUse = false;
    blocks.forEach((b, j) => {
      if (!isObject(b)) throw new InputError(`messages[${index}].content[${j}]: not a block object`);
      const where = `messages[${index}].content[${j}]`;
      if (typeof b.type === 'string' && USE_BLOCKS.has(b.type)) {
        if (role !== 'assistant') throw new InputError(`${where}: ${b.type} in a ${String(role)} message`);
        if (typeof b.name !== 'string' || !b.name) throw new InputError(`${where}.name: missing`);
        const call: ToolCall = {
          position: 0,
          tool: b.name,
          args: parseArgs(b.input, `${where}.input`),
          result: '',
          ok: true,
          error: null,
          durationMs: null,
          at: null,
        };
        split.call(typeof b.id === 'string' ? b.id : null, call, true, null);
        sawUse = true;
      } else if (typeof b.type === 'string' && (RESULT_BLOCKS.has(b.type) || isServerResult(b.type))) {
        const pending = split.current.pending;
        const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : null;
        let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
        if (k < 0) k = 0;
        const match = pending.splice(k, 1)[0];
        if (!match) throw new InputError(`${where}: ${b.type} without a pending tool_use`);
        const server = isServerResult(b.type);
        const result = server ? serverResultText(b.content) : toolResultText(b.content);
        match.call.result = capText(result, limits.resultChars);
        const failed = server
          ? isObject(b.content) && (typeof b.content.error_code === 'string' || /_error$/.test(String(b.content.type)))
          : typeof b.is_error === 'boolean'
            ? b.is_error
            : ERROR_RESULT.test(result);
        if (failed) {
          match.call.ok = false;
          match.call.error = capText(result || 'tool_result is_error', Math.min(limits.resultChars, 500));
        }
        split.resulted(null);
      } else if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    });
    // A user turn holding only tool results is not a request; text beside a tool_use is narration.
    if (role === 'user') tasks.user(text);
    else if (role === 'assistant' && !sawUse && text.trim()) split.assistantText(text, null);
    tasks.read(index);
  });
}

/**
 * The sessions of an Anthropic conversation log record: one per task, by the rule of task-splitter.ts (a record
 * that names its `goal` is one task). Notes (requests left out as small talk) go to `o.reports`.
 */
export function anthropicSessions(value: AnthropicConversation | unknown[], o: ConversationOptions): BuiltSession[] {
  return conversationSessions(value, 'anthropic', readAnthropic, o);
}
