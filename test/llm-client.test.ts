import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../src/model-clients/circuit-breaker.js';
import { CircuitOpenError } from '../src/errors/circuit-open-error.js';
import { EndpointHttpError } from '../src/errors/endpoint-http-error.js';
import { EndpointTimeoutError } from '../src/errors/endpoint-timeout-error.js';
import { EndpointUnreachableError } from '../src/errors/endpoint-unreachable-error.js';
import { MalformedResponseError } from '../src/errors/malformed-response-error.js';
import { SkillsmithError } from '../src/errors/skillsmith-error.js';
import { OpenAiClient, retryAfterMs, safeUrl } from '../src/model-clients/openai-client.js';
import { deadPort, startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';

const KEY = 'sk-test-4f9a1c7e2b8d6a0f3e5c9b1d';

async function caught(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('OpenAiClient against a real HTTP server speaking the OpenAI protocol', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer({ models: ['test-chat', 'nomic-embed-text:latest'] });
  });
  afterAll(() => server.stop());

  const client = (extra: Partial<ConstructorParameters<typeof OpenAiClient>[0]> = {}) =>
    new OpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 2000, breaker: null, ...extra });

  it('posts chat completions and returns the message text', async () => {
    server.script('chat', { kind: 'chat', content: 'hello there' });
    const res = await client().chat({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.1,
      maxTokens: 64,
    });
    expect(res.text).toBe('hello there');
    expect(res.finishReason).toBe('stop');
    const req = server.requestsTo('chat').at(-1)!;
    expect(req.json).toMatchObject({
      model: 'test-chat',
      temperature: 0.1,
      max_tokens: 64,
      stream: false,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('posts embeddings and returns the vectors in input order', async () => {
    server.script('embeddings', {
      kind: 'embeddings',
      vectors: [
        [1, 0],
        [0, 2],
      ],
    });
    const res = await client().embeddings({ model: 'e', input: ['a', 'b'] });
    expect(res.vectors).toEqual([
      [1, 0],
      [0, 2],
    ]);
  });

  it('lists models', async () => {
    expect(await client().listModels()).toEqual(['test-chat', 'nomic-embed-text:latest']);
  });

  it('sends the API key as a bearer header only', async () => {
    await client({ apiKey: KEY }).listModels();
    const req = server.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.path).not.toContain(KEY);
    // and no header when there is no key
    await client().listModels();
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('sends credentials written in the base URL as Basic authorization, never in the URL or an error', async () => {
    const [host, path] = server.baseUrl.replace('http://', '').split(/\/(.*)/);
    const withUser = (apiKey?: string) =>
      new OpenAiClient({
        baseUrl: `http://proxy-user:${encodeURIComponent('p@ss-URLKEY-77')}@${host}/${path}`,
        apiKey,
        timeoutMs: 2000,
        breaker: null,
      });
    await withUser().listModels();
    const req = server.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('proxy-user:p@ss-URLKEY-77').toString('base64')}`);
    expect(withUser().endpoint).toBe(server.baseUrl);
    // An API key, when given, is the credential.
    await withUser(KEY).listModels();
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    // The server that answers with the credentials in its error text shows none of them.
    server.script('models', {
      kind: 'status',
      status: 500,
      body: { error: { message: 'bad auth p@ss-URLKEY-77 for proxy-user' } },
    });
    const e = await caught(withUser().listModels());
    expect(e.message).not.toMatch(/URLKEY|proxy-user/);
  });

  it('keeps a query of the base URL after the API path (an Azure-style ?api-version=)', async () => {
    await client({ baseUrl: `${server.baseUrl}?api-version=2024-10-21` }).listModels();
    const req = server.requests.at(-1)!;
    expect([req.path, req.query]).toEqual(['/v1/models', 'api-version=2024-10-21']);
  });

  it('turns a 500 into EndpointHttpError carrying the server message', async () => {
    server.script('chat', {
      kind: 'status',
      status: 500,
      body: { error: { message: 'model crashed: out of memory' } },
    });
    const e = await caught(client().chat({ model: 'm', messages: [] }));
    expect(EndpointHttpError.isInstance(e)).toBe(true);
    expect(e.status).toBe(500);
    expect(e.message).toContain('model crashed: out of memory');
    expect(e.code).toBe('ENDPOINT_HTTP_ERROR');
    expect(SkillsmithError.isInstance(e)).toBe(true);
    expect(EndpointTimeoutError.isInstance(e)).toBe(false);
  });

  it('reads Ollama-style {error: "..."} bodies', async () => {
    server.script('chat', {
      kind: 'status',
      status: 404,
      body: { error: 'model "llama9" not found, try pulling it first' },
    });
    const e = await caught(client().chat({ model: 'llama9', messages: [] }));
    expect(e.serverMessage).toBe('model "llama9" not found, try pulling it first');
  });

  it('turns a non-JSON 200 and a shape without choices into MalformedResponseError', async () => {
    server.script('chat', { kind: 'raw', status: 200, body: '<html>proxy login</html>', contentType: 'text/html' });
    expect(MalformedResponseError.isInstance(await caught(client().chat({ model: 'm', messages: [] })))).toBe(true);
    server.script('chat', { kind: 'status', status: 200, body: { nothing: true } });
    const e = await caught(client().chat({ model: 'm', messages: [] }));
    expect(MalformedResponseError.isInstance(e)).toBe(true);
    expect(e.message).toContain('choices');
    server.script('embeddings', { kind: 'embeddings', vectors: [[1, 2]] });
    expect(
      MalformedResponseError.isInstance(await caught(client().embeddings({ model: 'e', input: ['a', 'b'] }))),
    ).toBe(true);
  });

  it('times out a slow answer with EndpointTimeoutError', async () => {
    server.script('chat', { kind: 'delay', ms: 1500, then: { kind: 'chat', content: 'too late' } });
    const started = Date.now();
    const e = await caught(client({ timeoutMs: 200 }).chat({ model: 'm', messages: [] }));
    expect(EndpointTimeoutError.isInstance(e)).toBe(true);
    expect(e.timeoutMs).toBe(200);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it('reports a refused connection as EndpointUnreachableError', async () => {
    const port = await deadPort();
    const e = await caught(
      new OpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 2000, breaker: null }).listModels(),
    );
    expect(EndpointUnreachableError.isInstance(e)).toBe(true);
    expect(e.reason).toMatch(/ECONNREFUSED/);
  });

  it('reports a dropped connection as EndpointUnreachableError', async () => {
    server.script('chat', { kind: 'destroy' });
    expect(EndpointUnreachableError.isInstance(await caught(client().chat({ model: 'm', messages: [] })))).toBe(true);
  });

  it('never puts the API key in an error message, even when the server echoes it', async () => {
    const guarded = await startFakeOpenAiServer({ apiKey: 'the-right-key' });
    try {
      const e = await caught(
        new OpenAiClient({ baseUrl: guarded.baseUrl, apiKey: KEY, timeoutMs: 2000, breaker: null }).listModels(),
      );
      expect(EndpointHttpError.isInstance(e)).toBe(true);
      expect(e.status).toBe(401);
      // The server did echo the key...
      expect(guarded.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
      // ...but no message, property or cause text carries it.
      expect(e.message).not.toContain(KEY);
      expect(JSON.stringify({ ...e, message: e.message, stack: e.stack })).not.toContain(KEY);
      expect(String(e.stack)).not.toContain(KEY);
    } finally {
      await guarded.stop();
    }
    // Unreachable and timeout errors do not carry it either.
    const port = await deadPort();
    const down = await caught(
      new OpenAiClient({
        baseUrl: `http://user:${KEY}@127.0.0.1:${port}/v1`,
        apiKey: KEY,
        timeoutMs: 500,
        breaker: null,
      }).listModels(),
    );
    expect(down.message).not.toContain(KEY);
    expect(safeUrl(`http://user:${KEY}@127.0.0.1:${port}/v1`)).toBe(`http://127.0.0.1:${port}/v1`);
  });

  it("tries again after a 429 or 503, waiting what the server's Retry-After asks (capped), else 1 s then 2 s; not after a 500", async () => {
    const waits: number[] = [];
    const c = client({ sleep: async (ms: number) => void waits.push(ms) });
    server.script(
      'chat',
      { kind: 'status', status: 429, body: { error: { message: 'rate limited' } }, headers: { 'retry-after': '3' } },
      { kind: 'status', status: 503, body: { error: 'busy' } },
      { kind: 'chat', content: 'third time' },
    );
    expect((await c.chat({ model: 'm', messages: [] })).text).toBe('third time');
    expect(waits).toEqual([3000, 2000]);
    // Two tries again at most; a Retry-After of an hour waits 20 s, not an hour.
    waits.length = 0;
    server.script(
      'chat',
      ...Array.from({ length: 3 }, () => ({
        kind: 'status' as const,
        status: 429,
        body: { error: { message: 'slow down' } },
        headers: { 'retry-after': '3600' },
      })),
    );
    const e = await caught(c.chat({ model: 'm', messages: [] }));
    expect([e.status, waits]).toEqual([429, [20_000, 20_000]]);
    // A server error is an answer: sent once.
    waits.length = 0;
    server.script('chat', { kind: 'status', status: 500, body: { error: { message: 'boom' } } });
    expect((await caught(c.chat({ model: 'm', messages: [] }))).status).toBe(500);
    expect(waits).toEqual([]);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30_000);
  });

  it('opens the circuit after repeated failures, says so, and lets a trial call through after the cool-off', async () => {
    let now = 1_000_000;
    const breaker = new CircuitBreaker('test llm', { failureThreshold: 2, coolOffMs: 30_000, now: () => now });
    const c = client({ breaker, retries: 0 });
    server.script(
      'chat',
      { kind: 'status', status: 503, body: { error: 'busy' } },
      { kind: 'status', status: 503, body: { error: 'busy' } },
    );
    await caught(c.chat({ model: 'm', messages: [] }));
    await caught(c.chat({ model: 'm', messages: [] }));
    const before = server.requestsTo('chat').length;
    const open = await caught(c.chat({ model: 'm', messages: [] }));
    expect(CircuitOpenError.isInstance(open)).toBe(true);
    expect(open.message).toMatch(/failed 2 times in a row; not calling it again before/);
    expect(server.requestsTo('chat').length).toBe(before); // no request was made
    now += 30_001;
    server.script('chat', { kind: 'chat', content: 'back' });
    expect((await c.chat({ model: 'm', messages: [] })).text).toBe('back');
    expect(breaker.state).toBe('closed');
  });
});
