import { CircuitBreaker } from './circuit-breaker.js';
import { EndpointHttpError } from '../errors/endpoint-http-error.js';
import { EndpointTimeoutError } from '../errors/endpoint-timeout-error.js';
import { EndpointUnreachableError } from '../errors/endpoint-unreachable-error.js';
import { MalformedResponseError } from '../errors/malformed-response-error.js';
import { keepFirst } from '../support/text.js';

/**
 * A small client for the OpenAI-compatible HTTP API that Ollama, llama.cpp server, vLLM, LM Studio,
 * Lemonade and OpenAI all speak: chat completions, embeddings and the model list, over `fetch`.
 *
 * Failures are typed: EndpointUnreachableError (connection refused, DNS, network), EndpointTimeoutError
 * (no complete answer within `timeoutMs`), EndpointHttpError (non-2xx, with the server's own message),
 * MalformedResponseError (2xx but not the expected shape), and CircuitOpenError once the back end has failed
 * repeatedly. The API key is only ever sent as an `Authorization: Bearer` header: it is never logged, and
 * every error message is scrubbed of it (servers sometimes echo what they were sent).
 */

export interface OpenAiClientOptions {
  /** Base URL including the version prefix, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Per request, headers and body together. */
  timeoutMs: number;
  /** Stops calling after repeated failures; pass `null` to disable. Default: 3 failures, 60 s cool-off. */
  breaker?: CircuitBreaker | null;
  /** Injected fetch (defaults to the global one). */
  fetch?: typeof fetch;
  /** Extra headers (never logged). */
  headers?: Record<string, string>;
  /**
   * Times a request is sent again after a 429, 502, 503 or 504 (rate limited, or the server briefly away), after
   * the server's `Retry-After` (up to 20 s) or 1 s, then 2 s. Default 2; 0 sends each request once.
   */
  retries?: number;
  /** Waits `ms` between tries (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

/** Statuses a server sends when a try later may succeed. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** The longest wait a `Retry-After` may ask for: a pass waits no longer for one request. */
const MAX_RETRY_WAIT_MS = 20_000;

/** A `Retry-After` value (seconds, or an HTTP date) in milliseconds, or null. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export interface ChatResult {
  /** The assistant message's text ('' when the server sent none). */
  text: string;
  finishReason: string | null;
  model: string | null;
  usage: { promptTokens: number | null; completionTokens: number | null };
}

export interface EmbeddingsRequest {
  model: string;
  input: string[];
  /** The vector length to ask for (sent as `dimensions` only when set). */
  dimensions?: number;
  timeoutMs?: number;
}

export interface EmbeddingsResult {
  /** One vector per input, in input order, as the server sent them (not normalised). */
  vectors: number[][];
  model: string | null;
}

export class OpenAiClient {
  readonly baseUrl: string;
  /** The base URL without credentials or query: safe to print. */
  readonly endpoint: string;
  readonly timeoutMs: number;
  readonly breaker: CircuitBreaker | null;
  readonly #apiKey: string | undefined;
  /** Basic credentials taken from the base URL (base64 of user:password), used when no API key is given. */
  readonly #basic: string | undefined;
  /** What errors must never show: the key, and the URL's user and password. */
  readonly #secrets: string[];
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;
  readonly #retries: number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(opts: OpenAiClientOptions) {
    if (!opts.baseUrl) throw new TypeError('OpenAiClient: baseUrl is required');
    // Credentials in the URL (`http://user:KEY@host/v1`, a proxy's basic auth) cannot go in a request URL: they
    // go as Basic authorization unless an API key is given, and are never printed.
    const { url: bare, basic } = splitCredentials(opts.baseUrl);
    this.baseUrl = bare.replace(/\/+$/, '');
    this.endpoint = safeUrl(this.baseUrl);
    this.timeoutMs = opts.timeoutMs;
    this.#apiKey = opts.apiKey || undefined;
    this.#secrets = [this.#apiKey, ...(basic ? [basic.user, basic.password] : [])].filter(
      (x): x is string => !!x && x.length >= 3,
    );
    this.#basic = basic ? Buffer.from(`${basic.user}:${basic.password}`).toString('base64') : undefined;
    this.#fetch = opts.fetch ?? globalThis.fetch;
    this.#headers = { ...(opts.headers ?? {}) };
    this.#retries = Math.max(0, Math.floor(opts.retries ?? 2));
    this.#sleep = opts.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
    this.breaker = opts.breaker === undefined ? new CircuitBreaker(this.endpoint) : opts.breaker;
  }

  /** Whether an API key is configured (the key itself is not readable from the client). */
  get hasApiKey(): boolean {
    return this.#apiKey !== undefined;
  }

  /** `POST /chat/completions`, not streamed. */
  async chat(req: ChatRequest): Promise<ChatResult> {
    const body: Record<string, unknown> = { model: req.model, messages: req.messages, stream: false };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (req.stop?.length) body.stop = req.stop;
    const { url, json } = await this.request('POST', '/chat/completions', body, req.timeoutMs);
    const choices = (json as { choices?: unknown }).choices;
    if (!Array.isArray(choices) || choices.length === 0)
      throw new MalformedResponseError(url, 'no "choices" array in the chat completion');
    const first = choices[0] as { message?: { content?: unknown }; text?: unknown; finish_reason?: unknown };
    const content = first?.message?.content ?? first?.text;
    let text: string;
    if (typeof content === 'string') text = content;
    else if (content === null || content === undefined) text = '';
    else if (Array.isArray(content)) {
      // Some servers send content parts: [{type: 'text', text: '...'}].
      text = content
        .map((p) =>
          p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
            ? (p as { text: string }).text
            : '',
        )
        .join('');
    } else throw new MalformedResponseError(url, 'choices[0].message.content is not text');
    const usage = (json as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
    return {
      text,
      finishReason: typeof first?.finish_reason === 'string' ? first.finish_reason : null,
      model: typeof (json as { model?: unknown }).model === 'string' ? (json as { model: string }).model : null,
      usage: {
        promptTokens: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : null,
        completionTokens: typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : null,
      },
    };
  }

  /** `POST /embeddings` for a batch of texts; the caller batches. */
  async embeddings(req: EmbeddingsRequest): Promise<EmbeddingsResult> {
    if (req.input.length === 0) return { vectors: [], model: null };
    const body: Record<string, unknown> = { model: req.model, input: req.input };
    if (req.dimensions !== undefined) body.dimensions = req.dimensions;
    const { url, json } = await this.request('POST', '/embeddings', body, req.timeoutMs);
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new MalformedResponseError(url, 'no "data" array in the embeddings response');
    if (data.length !== req.input.length)
      throw new MalformedResponseError(url, `${data.length} embeddings for ${req.input.length} inputs`);
    const vectors: number[][] = new Array(req.input.length);
    data.forEach((item, position) => {
      const entry = item as { embedding?: unknown; index?: unknown };
      const index = typeof entry?.index === 'number' ? entry.index : position;
      if (!Number.isInteger(index) || index < 0 || index >= req.input.length || vectors[index]) {
        throw new MalformedResponseError(url, `embedding index ${String(entry?.index)} is out of range or repeated`);
      }
      vectors[index] = readVector(url, entry?.embedding, index);
    });
    return {
      vectors,
      model: typeof (json as { model?: unknown }).model === 'string' ? (json as { model: string }).model : null,
    };
  }

  /** `GET /models`: the ids the server says it serves. */
  async listModels(opts: { timeoutMs?: number } = {}): Promise<string[]> {
    const { url, json } = await this.request('GET', '/models', undefined, opts.timeoutMs);
    const list = (json as { data?: unknown; models?: unknown }).data ?? (json as { models?: unknown }).models;
    if (!Array.isArray(list)) throw new MalformedResponseError(url, 'no "data" array in the model list');
    return list
      .map((m) =>
        typeof m === 'string'
          ? m
          : m && typeof m === 'object'
            ? ((m as { id?: unknown }).id ?? (m as { name?: unknown }).name)
            : undefined,
      )
      .filter((id): id is string => typeof id === 'string');
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<{ url: string; json: unknown }> {
    const url = joinPath(this.baseUrl, path);
    const shown = `${method} ${safeUrl(url)}`;
    const call = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.send(method, url, shown, body, timeoutMs);
        } catch (e) {
          if (!EndpointHttpError.isInstance(e) || !RETRY_STATUSES.has(e.status) || attempt >= this.#retries) throw e;
          const asked = retryAfterMs(e.retryAfter);
          await this.#sleep(Math.min(asked ?? 1000 * 2 ** attempt, MAX_RETRY_WAIT_MS));
        }
      }
    };
    return { url: shown, json: this.breaker ? await this.breaker.run(call) : await call() };
  }

  private async send(method: string, url: string, shown: string, body: unknown, timeoutMs: number): Promise<unknown> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const headers: Record<string, string> = { accept: 'application/json', ...this.#headers };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
      else if (this.#basic) headers.authorization = `Basic ${this.#basic}`;
      let res: Response;
      let text: string;
      try {
        res = await this.#fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
        text = await res.text();
      } catch (e) {
        if (timedOut) throw new EndpointTimeoutError(shown, timeoutMs);
        throw new EndpointUnreachableError(shown, this.scrub(networkReason(e)), { cause: e });
      }
      if (!res.ok)
        throw new EndpointHttpError(
          shown,
          res.status,
          this.scrub(serverMessage(text, res.statusText)),
          res.headers.get('retry-after'),
        );
      const json = parseJsonOrUndefined(text);
      if (json === null || typeof json !== 'object')
        throw new MalformedResponseError(shown, `not a JSON object (${this.scrub(snippet(text))})`);
      return json;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Removes the API key (and anything that looks like a bearer credential) from text bound for an error. */
  private scrub(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('***');
    return out.replace(/(bearer|basic)(\s+)[^\s"',;]+/gi, '$1$2***').replace(/(\/\/)[^/@\s]+@/g, '$1');
  }
}

/** The URL without user:password, query or fragment: safe to print. */
/**
 * The base URL with an API path added to its path, its query kept after it (`https://x.example/v1?api-version=2`
 * and `/models` give `https://x.example/v1/models?api-version=2`, not `.../v1?api-version=2/models`).
 */
function joinPath(baseUrl: string, path: string): string {
  try {
    const u = new URL(baseUrl);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}${path}`;
    return u.toString();
  } catch {
    return `${baseUrl}${path}`;
  }
}

/** A URL without its user and password, and those (decoded) when it had any. */
function splitCredentials(url: string): { url: string; basic: { user: string; password: string } | null } {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return { url, basic: null };
    const basic = { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
    u.username = '';
    u.password = '';
    return { url: u.toString(), basic };
  } catch {
    return { url, basic: null };
  }
}

export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}

function readVector(url: string, raw: unknown, index: number): number[] {
  if (typeof raw === 'string') {
    // encoding_format "base64": little-endian float32.
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0)
      throw new MalformedResponseError(url, `embedding ${index} is not a float32 base64 string`);
    const out = new Array<number>(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  if (!Array.isArray(raw) || raw.length === 0)
    throw new MalformedResponseError(url, `embedding ${index} is not a list of numbers`);
  for (const x of raw)
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new MalformedResponseError(url, `embedding ${index} holds a non-finite value`);
  return raw as number[];
}

/** The system error code behind a failed fetch (ECONNREFUSED, ENOTFOUND, ...), or its message. */
function networkReason(e: unknown): string {
  const seen = new Set<unknown>();
  const codes: string[] = [];
  const walk = (x: unknown) => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) codes.push(code);
    walk((x as { cause?: unknown }).cause);
    const errors = (x as { errors?: unknown }).errors;
    if (Array.isArray(errors)) errors.forEach(walk);
  };
  walk(e);
  if (codes.length) {
    const code = codes[0];
    const hint: Record<string, string> = {
      ECONNREFUSED: 'connection refused: is the server running on that port?',
      ENOTFOUND: 'host not found (DNS)',
      EAI_AGAIN: 'host name lookup failed (DNS)',
      ECONNRESET: 'connection reset by the server',
      EHOSTUNREACH: 'host unreachable',
      ENETUNREACH: 'network unreachable',
      ETIMEDOUT: 'connection timed out',
    };
    return hint[code] ? `${code}, ${hint[code]}` : code;
  }
  const cause = (e as { cause?: { message?: unknown } })?.cause?.message;
  const message = (e as { message?: unknown })?.message;
  return typeof cause === 'string' ? cause : typeof message === 'string' ? message : String(e);
}

/** What the server said: OpenAI `{error: {message}}`, Ollama `{error: "..."}`, or the start of the text. */
function serverMessage(text: string, statusText: string): string {
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const err = json?.error;
    if (typeof err === 'string') return snippet(err);
    if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string')
      return snippet((err as { message: string }).message);
    if (typeof json?.message === 'string') return snippet(json.message);
    if (typeof json?.detail === 'string') return snippet(json.detail);
  } catch {
    // not JSON: fall through
  }
  return snippet(text) || statusText;
}

function snippet(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${keepFirst(flat, max)}…` : flat;
}

/** The value `text` holds as JSON, or undefined when it is not JSON. */
function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
