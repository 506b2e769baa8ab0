import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InputError } from '../../errors/input-error.js';
import { SessionStateError } from '../../errors/session-state-error.js';

/** JSON-RPC 2.0 error codes answered by the transport itself. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

type Id = string | number | null;

/**
 * MCP over stdin/stdout, newline-delimited, that survives hostile input (issue #14). The SDK's stdio transport
 * closes (and the process exits silently) when one message is larger than its buffer, and answers neither a
 * parse error nor an invalid request. This one reads line by line with a bound: an oversized line is
 * discarded as it streams in (never buffered whole) and answered with an Invalid Request error carrying its id
 * when the id can be seen; a line that is not JSON gets a Parse error (-32700); JSON that is not a JSON-RPC
 * message gets an Invalid Request (-32600). The server keeps serving after each of them.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Discarding an oversized line: its first and last bytes, to find its id. */
  private skipping: { bytes: number; head: string; tail: string } | null = null;
  private started = false;

  constructor(
    private readonly maxMessageBytes: number,
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
  ) {}

  private readonly ondata = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl < 0) return;
      this.endLine();
      start = nl + 1;
    }
  };

  private readonly onstreamerror = (e: Error) => this.onerror?.(e);

  async start(): Promise<void> {
    if (this.started) throw new SessionStateError('BoundedStdioTransport already started: start() reads stdin once');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const text = `${JSON.stringify(message)}\n`;
    if (!this.stdout.write(text)) await new Promise<void>((resolve) => this.stdout.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
  }

  private take(part: Buffer) {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += part.length;
      this.skipping.tail = (this.skipping.tail + part.toString('latin1')).slice(-256);
      return;
    }
    if (this.size + part.length > this.maxMessageBytes) {
      const head = Buffer.concat([...this.chunks, part])
        .subarray(0, 4096)
        .toString('latin1');
      this.skipping = { bytes: this.size + part.length, head, tail: part.toString('latin1').slice(-256) };
      this.chunks = [];
      this.size = 0;
      return;
    }
    this.chunks.push(Buffer.from(part));
    this.size += part.length;
  }

  private endLine() {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = null;
      this.reject(
        idIn(head) ?? idIn(tail, true) ?? null,
        INVALID_REQUEST,
        `message of ${bytes} bytes or more is over the ${this.maxMessageBytes}-byte limit; it was discarded`,
      );
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.reject(null, PARSE_ERROR, `Parse error: ${(e as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id =
        typeof value === 'object' && value !== null && 'id' in value ? ((value as { id: unknown }).id as Id) : null;
      this.reject(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        INVALID_REQUEST,
        'Invalid Request: not a JSON-RPC 2.0 message',
      );
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  private reject(id: Id, code: number, message: string) {
    this.onerror?.(new InputError(message));
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((e) =>
      this.onerror?.(e as Error),
    );
  }
}

/** The JSON-RPC id of a message from a piece of its text (the SDK client writes `"id"` last). */
function idIn(text: string, atEnd = false): Id | undefined {
  const re = atEnd
    ? /"id"\s*:\s*(\d{1,15}|"[^"\\]{0,200}")\s*\}\s*$/
    : /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d{1,15}|"[^"\\]{0,200}")/;
  const m = re.exec(text);
  if (!m) return undefined;
  return m[1].startsWith('"') ? m[1].slice(1, -1) : Number(m[1]);
}
