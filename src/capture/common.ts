import { createHash } from 'node:crypto';
import type { Outcome } from '../domain/types.js';
import { stringifyResult } from './normalized-jsonl.js';
import { InputError } from '../errors/input-error.js';

/** Tool results that read as an error when the log has no explicit error flag. */
export const ERROR_RESULT = /^\s*(?:error\b|exception\b|traceback\b|\{\s*"error"\s*:)/i;

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Text of a message content: a string, or parts/blocks whose `text` (or `content`) is joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        if (!isObject(part)) return '';
        if (typeof part.text === 'string') return part.text;
        if (part.type === 'text' && typeof part.content === 'string') return part.content;
        return '';
      })
      .join('');
  }
  return content == null ? '' : stringifyResult(content);
}

/**
 * The text of an Anthropic `tool_result` content (Claude Code's too): its text blocks a line each, and an image or
 * a document said as such (`[image/png]`), so a result that showed a picture does not read as no result.
 */
export function toolResultText(content: unknown): string {
  if (!Array.isArray(content)) return contentText(content);
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'image' || part.type === 'document') {
        const media =
          isObject(part.source) && typeof part.source.media_type === 'string' ? part.source.media_type : part.type;
        return `[${media}]`;
      }
      return '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** The text of a multimodal content: a string, or the strings of a list (images and files left out). */
export function stringsText(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.filter((c) => typeof c === 'string').join('\n') : '';
}

/** Tool-call arguments: an object, a JSON string holding one, or nothing. Throws with `where` otherwise. */
export function parseArgs(raw: unknown, where: string): Record<string, unknown> {
  if (raw == null || raw === '') return {};
  if (typeof raw === 'object') return Array.isArray(raw) ? { value: raw } : (raw as Record<string, unknown>);
  if (typeof raw !== 'string') throw new InputError(`${where}: must be a JSON string or object`);
  try {
    const parsed = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    throw new InputError(`${where}: not valid JSON`);
  }
}

/** A stable id from content, so that re-ingesting the same file stays idempotent. */
export function contentId(prefix: string, value: unknown): string {
  return `${prefix}:${createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 20)}`;
}

/** An outcome from the usual source fields: `outcome`, else `success`, else unknown. */
export function outcomeOf(rec: { outcome?: unknown; success?: unknown }): Outcome | null {
  if (rec.outcome === 'success' || rec.outcome === 'failure' || rec.outcome === 'unknown') return rec.outcome;
  if (typeof rec.success === 'boolean') return rec.success ? 'success' : 'failure';
  return null;
}

/** A result may be any JSON value; sessions store text. */
export function resultText(v: unknown): string {
  return typeof v === 'string' ? v : stringifyResult(v);
}

/** A string of its own: a slice would keep the whole string it was cut from. */
export function ownCopy(s: string): string {
  return Buffer.from(s, 'utf16le').toString('utf16le');
}

/** The first `keep` characters of a text, as a string of its own (the text itself when it is no longer). */
export function cutTo(text: string, keep: number): string {
  return text.length <= keep ? text : ownCopy(text.slice(0, keep));
}

/** Lines of a known format that this version does not read, counted by kind (`type`). */
export type Unread = Map<string, number>;

export function countUnread(unread: Unread, kind: unknown): void {
  const k = typeof kind === 'string' && kind ? kind.slice(0, 60) : '(no type)';
  unread.set(k, (unread.get(k) ?? 0) + 1);
}
