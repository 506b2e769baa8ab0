import type { SkillEvent } from './types.js';

const TOKEN_KEY = 'skillsmith.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error answer's other fields (e.g. `nowKnownAs` of a renamed skill's 404). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function headers(method: string): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json' };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) h.Authorization = `Bearer ${token}`;
  // The server refuses state changes without it: another site's page cannot send it.
  if (method !== 'GET') h['X-Skillsmith-CSRF'] = '1';
  return h;
}

/** A request that got no answer at all (the server stopped, the network went): said so, not "Failed to fetch". */
async function reach(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch {
    throw new ApiError(
      0,
      'The Skillsmith server does not answer: is it still running? Reload the page once it is back.',
    );
  }
}

async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const h = headers(method);
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await reach(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) {
    const payload = (await res.json().catch(() => null)) as ({ error?: string } & Record<string, unknown>) | null;
    throw new ApiError(res.status, payload?.error ?? `${res.status} ${res.statusText}`, payload ?? {});
  }
  return res;
}

/**
 * Posts a log as its raw text (`POST /api/ingest`): the status with the body, since a 422 still says what was
 * stored and which records were rejected.
 */
async function sendLog<T>(path: string, text: string): Promise<{ status: number; body: T }> {
  const h = headers('POST');
  h['Content-Type'] = 'application/json';
  const res = await reach(path, { method: 'POST', headers: h, body: text });
  if (!res.ok && res.status !== 422) {
    const payload = (await res.json().catch(() => null)) as { error?: string } | null;
    throw new ApiError(res.status, payload?.error ?? `${res.status} ${res.statusText}`);
  }
  return { status: res.status, body: (await res.json()) as T };
}

/** Sends a text body as it is (`PUT .../SKILL.md`: the SKILL.md itself, text/markdown), with the JSON answer. */
async function sendText<T>(method: string, path: string, text: string, type: string): Promise<T> {
  const h = headers(method);
  h['Content-Type'] = type;
  const res = await reach(path, { method, headers: h, body: text });
  if (!res.ok) {
    const payload = (await res.json().catch(() => null)) as ({ error?: string } & Record<string, unknown>) | null;
    throw new ApiError(res.status, payload?.error ?? `${res.status} ${res.statusText}`, payload ?? {});
  }
  return (await res.json()) as T;
}

export const api = {
  log: sendLog,
  putMarkdown: <T>(path: string, text: string): Promise<T> =>
    sendText<T>('PUT', path, text, 'text/markdown; charset=utf-8'),
  get: async <T>(path: string): Promise<T> => (await send('GET', path)).json() as Promise<T>,
  post: async <T>(path: string, body: unknown): Promise<T> => (await send('POST', path, body)).json() as Promise<T>,
  patch: async <T>(path: string, body: unknown): Promise<T> => (await send('PATCH', path, body)).json() as Promise<T>,
  delete: async <T>(path: string): Promise<T> => (await send('DELETE', path)).json() as Promise<T>,
  blob: async (path: string): Promise<Blob> => (await send('GET', path)).blob(),
};

export function setToken(token: string) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** The token this tab sent, forgotten (the server refused it); null when it sent none. */
export function takeRejectedToken(): string | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  return token;
}

/** Saves a download fetched with the token (a plain link could not carry the Authorization header). */
export async function download(path: string, filename: string) {
  const url = URL.createObjectURL(await api.blob(path));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Follows /api/events/stream (server-sent events read with fetch, so the token header goes along) and
 * reconnects after the last event seen. Returns a function that stops it.
 */
export function followEvents(onEvent: (e: SkillEvent) => void, onLive: (live: boolean) => void): () => void {
  const stop = new AbortController();
  let last: string | null = null;
  const run = async () => {
    while (!stop.signal.aborted) {
      try {
        const h = headers('GET');
        h.Accept = 'text/event-stream';
        if (last) h['Last-Event-ID'] = last;
        const res = await fetch('/api/events/stream', { headers: h, signal: stop.signal });
        if (!res.ok || !res.body)
          throw new ApiError(
            res.status,
            `the event stream answered HTTP ${res.status}${res.body ? '' : ' without a body'}`,
          );
        onLive(true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields = Object.fromEntries(
              frame
                .split('\n')
                .filter((l) => !l.startsWith(':'))
                .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
            );
            if (fields.id) last = fields.id;
            // `ready` opens the stream (its id is where a reconnect resumes); every other event is a skill event.
            if (fields.id && fields.data && fields.event !== 'ready') onEvent(JSON.parse(fields.data) as SkillEvent);
          }
        }
      } catch {
        // Fall through to a reconnect (or stop when aborted).
      }
      onLive(false);
      if (!stop.signal.aborted) await new Promise((r) => setTimeout(r, 3000));
    }
  };
  void run();
  return () => stop.abort();
}
