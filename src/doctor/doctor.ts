import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SkillsmithConfig } from '../config/config.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import type { OpenAiEmbedder } from '../embedders/openai-embedder.js';
import { loadTransformers } from '../embedders/transformers-embedder.js';
import { createChatModel, createEmbedder, createJudgeModel } from '../backends/from-config.js';
import { EmbeddingDimensionError } from '../errors/embedding-dimension-error.js';
import { EndpointHttpError } from '../errors/endpoint-http-error.js';
import { loadLlamaCpp } from '../model-clients/llama-cpp.js';
import { knownEmbeddingModel, modelListed } from '../model-clients/models.js';
import type { OpenAiChatModel } from '../llm/openai-chat-model.js';
import { OpenAiClient } from '../model-clients/openai-client.js';
import type { ModuleImporter } from '../model-clients/optional-import.js';
import { SkillsmithError } from '../errors/skillsmith-error.js';
import type { Store } from '../store/store.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  backend: 'embedder' | 'llm' | 'judge' | 'store';
  /** config | package | reachable | model | round-trip | dimension | thresholds | stored-vectors | distiller */
  check: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (for warn and fail). */
  fix?: string;
  details?: Record<string, unknown>;
}

export interface BackendSummary {
  provider: string;
  model?: string;
  /** Base URL without credentials, or a local path. */
  endpoint?: string;
  apiKey?: 'set' | 'unset';
}

export interface DoctorReport {
  /** False when any check failed. */
  ok: boolean;
  problems: number;
  warnings: number;
  embedder: BackendSummary & { id?: string; dimensions?: number; thresholds?: EmbedderThresholds };
  distiller: { kind: SkillsmithConfig['distiller']; llm?: BackendSummary };
  checks: DoctorCheck[];
}

/** What the command found at the memory's location, for the memory check (nothing: not checked). */
export type MemoryState =
  | { location: string; kind: string; schemaVersion: number; readOnly: boolean }
  /** No memory there yet; `canCreate`: whether this account may create it (null: not known). */
  | { location: string; kind: string; missing: true; canCreate: boolean | null; why?: string }
  /** A database of another program, which a memory is never made in (`foreign`: why, as opening it says). */
  | { location: string; kind: string; foreign: string };

export interface DoctorDeps {
  /** The memory: opened (its schema, whether it may be written) or missing. */
  memory?: MemoryState;
  fetch?: typeof fetch;
  importer?: ModuleImporter;
  /** When given, stored skill vectors are checked against the configured embedder. */
  store?: Pick<Store, 'listSkills'>;
  namespace?: string;
  /** Timeout of the reachability checks (default: the back end's timeout, at most 10 s). */
  probeTimeoutMs?: number;
}

const ROUND_TRIP_TEXTS = ['skillsmith doctor: embedding round trip', 'a second sentence, to check batching'];

/**
 * Checks every configured back end: the embedder (reachable, model present, a round trip of two texts,
 * the dimension, the thresholds), the distiller (for `llm`: reachable, model present, a one-token chat)
 * and, given a store, that stored skill vectors come from the configured embedder. Says what to fix; the
 * report is `ok` only when nothing failed. The API key is never part of the report.
 */
export async function runDoctor(config: SkillsmithConfig, deps: DoctorDeps = {}): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const report: DoctorReport = {
    ok: true,
    problems: 0,
    warnings: 0,
    embedder: summary(config.embedder),
    distiller: { kind: config.distiller },
    checks,
  };
  if (deps.memory) checks.push(memoryCheck(deps.memory));
  const embedder = await checkEmbedder(config, deps, checks, report);
  if (embedder && deps.store)
    await checkStoredVectors(deps.store, deps.namespace ?? config.namespace, embedder, checks);
  await checkDistiller(config, deps, checks, report);
  await checkJudge(config, deps, checks);
  if (
    config.distiller === 'llm' &&
    config.llm.fallback === 'heuristic' &&
    checks.some((c) => c.backend === 'llm' && c.status === 'fail')
  ) {
    checks.push({
      backend: 'llm',
      check: 'fallback',
      status: 'warn',
      message:
        'llm.fallback is "heuristic": while the model is unavailable, passes distil with the heuristic distiller (and say so)',
    });
  }
  report.problems = checks.filter((c) => c.status === 'fail').length;
  report.warnings = checks.filter((c) => c.status === 'warn').length;
  report.ok = report.problems === 0;
  return report;
}

/** The memory itself: where it is, its schema, and whether this account may write it (or create it). */
function memoryCheck(m: MemoryState): DoctorCheck {
  if ('foreign' in m)
    return {
      backend: 'store',
      check: 'memory',
      status: 'fail',
      message: m.foreign,
      fix:
        m.kind === 'postgres'
          ? 'keep the memory in a schema of its own (options=-csearch_path%3DNAME in the URL), or name another database with --db'
          : 'name a new file or an existing Skillsmith memory with --db',
    };
  if ('missing' in m) {
    if (m.canCreate === false)
      return {
        backend: 'store',
        check: 'memory',
        status: 'fail',
        message: `no memory at ${m.location} yet, and this account may not create one there${m.why ? ` (${m.why})` : ''}`,
        fix:
          m.kind === 'postgres'
            ? 'grant the user CREATE on the schema (or use a database it owns), or name another memory with --db'
            : 'name a memory in a folder this account may write (--db PATH)',
      };
    return {
      backend: 'store',
      check: 'memory',
      status: 'ok',
      message: `no memory at ${m.location} yet: the first command that stores (ingest, learn, serve) creates it`,
    };
  }
  if (m.readOnly)
    return {
      backend: 'store',
      check: 'memory',
      status: 'warn',
      message: `${m.kind} memory at ${m.location} (schema version ${m.schemaVersion}) is open read-only: recall, listing and export work; learning, ingest and edits are refused`,
      fix:
        m.kind === 'postgres'
          ? 'grant the user INSERT, UPDATE and DELETE on its tables to learn with it'
          : 'run where this account may write the file and its folder, or copy them somewhere writable',
    };
  return {
    backend: 'store',
    check: 'memory',
    status: 'ok',
    message: `${m.kind} memory at ${m.location}: schema version ${m.schemaVersion}, readable and writable`,
  };
}

function summary(c: {
  provider: string;
  model?: string;
  baseUrl?: string;
  modelPath?: string;
  apiKey?: string;
}): BackendSummary {
  const out: BackendSummary = { provider: c.provider };
  if (c.model) out.model = c.model;
  if (c.baseUrl) out.endpoint = new OpenAiClient({ baseUrl: c.baseUrl, timeoutMs: 1, breaker: null }).endpoint;
  else if (c.modelPath) out.endpoint = resolve(c.modelPath);
  if (c.provider === 'openai') out.apiKey = c.apiKey ? 'set' : 'unset';
  return out;
}

// ── embedder ────────────────────────────────────────────────────────────────

async function checkEmbedder(
  config: SkillsmithConfig,
  deps: DoctorDeps,
  checks: DoctorCheck[],
  report: DoctorReport,
): Promise<Embedder | null> {
  const e = config.embedder;
  const add = (c: Omit<DoctorCheck, 'backend'>) => checks.push({ backend: 'embedder', ...c });
  let embedder: (Embedder & { calibrated?: boolean; thresholdSource?: string; close?(): Promise<void> }) | null = null;

  if (e.provider === 'glove') {
    try {
      const glove = await createEmbedder(config, { probe: false });
      const vectors = await glove.embed(ROUND_TRIP_TEXTS);
      add({
        check: 'round-trip',
        status: 'ok',
        message: `embedded GloVe embedder ${glove.id} is ready: ${vectors[0].length} dimensions, no network, no download`,
        details: { dimensions: glove.dimensions },
      });
      embedder = Object.assign(glove, { calibrated: true, thresholdSource: 'calibrated on the tau dev traces' });
    } catch (err) {
      add({
        check: 'round-trip',
        status: 'fail',
        message: `the embedded GloVe embedder cannot load: ${message(err)}`,
        fix: 'reinstall skillsmith: the GloVe table in assets/ is missing or damaged',
      });
      return null;
    }
  } else if (e.provider === 'openai') {
    if (!e.baseUrl || !e.model) {
      add({
        check: 'config',
        status: 'fail',
        message: `embedder.provider is "openai" but embedder.${!e.baseUrl ? 'baseUrl' : 'model'} is not set`,
        fix: !e.baseUrl
          ? 'set embedder.baseUrl, e.g. "http://127.0.0.1:11434/v1" for Ollama'
          : 'set embedder.model, e.g. "nomic-embed-text"',
      });
      return null;
    }
    const candidate = (await createEmbedder(config, {
      fetch: deps.fetch,
      breaker: null,
      probe: false,
    })) as OpenAiEmbedder;
    const listing = await checkServer(candidate.client, e.model, 'embedder', probeTimeout(deps, e.timeoutMs), add);
    if (listing === 'down') {
      for (const check of ['model', 'round-trip'])
        add({ check, status: 'skip', message: 'not checked: the server is not reachable' });
      return null;
    }
    embedder = await roundTrip(candidate, add, { model: e.model, listing, key: 'embedder', requested: e.dimensions });
  } else {
    const isLlama = e.provider === 'llama-cpp';
    const pkgOk = await checkPackage(isLlama ? 'llama-cpp' : 'transformers', deps, add, 'embedder');
    if (!pkgOk) return null;
    if (isLlama) {
      if (!checkPath(e.modelPath, 'embedder.modelPath', 'file', add)) return null;
      embedder = await roundTrip(await createEmbedder(config, { importer: deps.importer, probe: false }), add, {
        key: 'embedder',
      });
    } else {
      if (!e.model && !e.modelPath) {
        add({
          check: 'config',
          status: 'fail',
          message: 'embedder.provider is "transformers" but neither embedder.model nor embedder.modelPath is set',
          fix: 'set embedder.modelPath to a local model folder, or embedder.model to a model id',
        });
        return null;
      }
      if (e.modelPath && !checkPath(e.modelPath, 'embedder.modelPath', 'dir', add)) return null;
      embedder = await roundTrip(await createEmbedder(config, { importer: deps.importer, probe: false }), add, {
        key: 'embedder',
      });
    }
  }
  if (!embedder) return null;

  report.embedder.id = embedder.id;
  report.embedder.dimensions = embedder.dimensions;
  const t = embedder.thresholds;
  const overrides = config.thresholds;
  const effective = {
    cluster: overrides.cluster ?? t.cluster,
    recall: overrides.recall ?? t.recall,
    duplicate: overrides.duplicate ?? t.duplicate,
  };
  report.embedder.thresholds = effective;
  const allSet = overrides.cluster !== undefined && overrides.recall !== undefined && overrides.duplicate !== undefined;
  const shown = `cluster ${effective.cluster}, recall ${effective.recall}, duplicate ${effective.duplicate}`;
  if (allSet) add({ check: 'thresholds', status: 'ok', message: `${shown} (from the configuration)` });
  else if (embedder.calibrated)
    add({
      check: 'thresholds',
      status: 'ok',
      message: `${shown} (${embedder.thresholdSource ?? 'per-embedder defaults'})`,
    });
  else {
    add({
      check: 'thresholds',
      status: 'warn',
      message: `${shown}: generic defaults, not calibrated for this model${uncalibratedBecause(embedder.thresholdSource)}`,
      fix: 'calibrate on your traces and set thresholds.cluster, thresholds.recall and thresholds.duplicate',
    });
  }
  await embedder.close?.();
  return embedder;
}

type Listing = { ids: string[] } | 'unlisted' | 'down';

/** GET /models: reachable? authorised? Returns the model ids, 'unlisted' when the server has no list, or 'down'. */
async function checkServer(
  client: OpenAiClient,
  _model: string,
  key: 'embedder' | 'llm' | 'capture.judge',
  timeoutMs: number,
  add: (c: Omit<DoctorCheck, 'backend'>) => void,
): Promise<Listing> {
  try {
    const ids = await client.listModels({ timeoutMs });
    add({
      check: 'reachable',
      status: 'ok',
      message: `${client.endpoint} answers (${ids.length} model${ids.length === 1 ? '' : 's'} listed)`,
    });
    return { ids };
  } catch (err) {
    if (EndpointHttpError.isInstance(err) && (err.status === 404 || err.status === 405)) {
      add({
        check: 'reachable',
        status: 'warn',
        message: `${client.endpoint} answers but has no model list (${err.message})`,
        fix: /\/v\d+$/.test(client.endpoint)
          ? 'the model cannot be checked before the round trip; make sure the server is OpenAI-compatible'
          : `OpenAI-compatible base URLs usually end in /v1: try ${client.endpoint}/v1 in ${key}.baseUrl`,
      });
      return 'unlisted';
    }
    add({ check: 'reachable', status: 'fail', message: message(err), fix: serverFix(err, key, client.endpoint) });
    return 'down';
  }
}

async function roundTrip(
  candidate: Embedder & {
    ready?(): Promise<unknown>;
    calibrated?: boolean;
    thresholdSource?: string;
    close?(): Promise<void>;
  },
  add: (c: Omit<DoctorCheck, 'backend'>) => void,
  /** `requested`: the length `embedder.dimensions` asks the server for. */
  ctx: { model?: string; listing?: Listing; key: 'embedder'; requested?: number },
): Promise<typeof candidate | null> {
  const listed =
    ctx.model && ctx.listing && typeof ctx.listing === 'object' ? modelListed(ctx.model, ctx.listing.ids) : undefined;
  const available =
    ctx.listing && typeof ctx.listing === 'object' ? ctx.listing.ids.slice(0, 10).join(', ') || '(none)' : '';
  if (listed === true) add({ check: 'model', status: 'ok', message: `${ctx.model} is served` });
  try {
    await candidate.ready?.();
    const vectors = await candidate.embed(ROUND_TRIP_TEXTS);
    const dims = vectors[0]?.length ?? 0;
    const unit = vectors.every((v) => Math.abs(Math.hypot(...v) - 1) < 1e-3);
    if (listed === false) {
      add({
        check: 'model',
        status: 'warn',
        message: `${ctx.model} is not in the server's model list (${available}) but it answered`,
        fix: `check that ${ctx.key}.model names the model you mean`,
      });
    }
    if (!unit || dims === 0) {
      add({
        check: 'round-trip',
        status: 'fail',
        message: `the embedder returned ${unit ? 'empty' : 'zero'} vectors for non-empty texts`,
        fix: `check that ${ctx.key}.model is an embedding model`,
      });
      return null;
    }
    add({
      check: 'round-trip',
      status: 'ok',
      message: `${vectors.length} texts embedded: ${dims} dimensions, id ${candidate.id}`,
      details: { id: candidate.id, dimensions: dims },
    });
    const known = ctx.model ? knownEmbeddingModel(ctx.model)?.dimensions : undefined;
    add({
      check: 'dimension',
      status: 'ok',
      message: `${dims} dimensions${ctx.requested !== undefined ? ` (as ${ctx.key}.dimensions asks)` : known ? ` (as expected for ${ctx.model})` : ''}`,
    });
    return candidate;
  } catch (err) {
    if (listed === false) {
      add({
        check: 'model',
        status: 'fail',
        message: `${ctx.model} is not served (available: ${available})`,
        fix: `pull it (e.g. "ollama pull ${ctx.model}") or set ${ctx.key}.model to one of the available models`,
      });
    }
    if (EmbeddingDimensionError.isInstance(err) && ctx.requested !== undefined) {
      add({
        check: 'dimension',
        status: 'fail',
        message: `${ctx.key}.dimensions asks for ${ctx.requested}-dimensional vectors but ${ctx.model ?? 'the model'} gave ${err.got}: the server or the model ignored the request's "dimensions" field`,
        fix: `use a model and server that shorten vectors on request (OpenAI text-embedding-3, a Matryoshka model on a recent Ollama or vLLM), or remove ${ctx.key}.dimensions`,
      });
    } else if (EmbeddingDimensionError.isInstance(err)) {
      add({
        check: 'dimension',
        status: 'fail',
        message: `${ctx.model ?? candidate.constructor.name} should give ${err.expected}-dimensional vectors but gave ${err.got}: the server serves another model under this name`,
        fix: `check ${ctx.key}.model and the server's model`,
      });
    } else {
      add({
        check: 'round-trip',
        status: 'fail',
        message: message(err),
        fix:
          listed === false ? undefined : serverFix(err, ctx.key, (candidate as { endpoint?: string }).endpoint ?? ''),
      });
    }
    return null;
  }
}

async function checkStoredVectors(
  store: Pick<Store, 'listSkills'>,
  namespace: string,
  embedder: Embedder,
  checks: DoctorCheck[],
): Promise<void> {
  const skills = await store.listSkills(namespace, { includeSuperseded: true });
  const stale = skills.filter(
    (s) => s.embedderId !== embedder.id || !s.embedding || s.embedding.length !== embedder.dimensions,
  );
  const ids = [...new Set(stale.map((s) => s.embedderId ?? 'none'))];
  if (stale.length === 0) {
    checks.push({
      backend: 'store',
      check: 'stored-vectors',
      status: 'ok',
      message: `${skills.length} skill vector${skills.length === 1 ? '' : 's'} in namespace "${namespace}" come from ${embedder.id}`,
    });
    return;
  }
  const reembed = `skillsmith reembed${namespace === 'default' ? '' : ` --namespace ${namespace}`}`;
  const earlier = new Set(embedder.supersedes ?? []);
  if (
    stale.every((s) => s.embedding && s.embedding.length === embedder.dimensions && earlier.has(s.embedderId ?? ''))
  ) {
    // An earlier version of this embedder: the next pass re-embeds them on its own.
    checks.push({
      backend: 'store',
      check: 'stored-vectors',
      status: 'warn',
      message: `${stale.length} of ${skills.length} skills in namespace "${namespace}" were embedded with ${ids.join(', ')}, an earlier version of ${embedder.id}: recall ignores them until the next synthesis pass re-embeds them`,
      fix: `run a pass ("skillsmith synthesize") or "${reembed}"`,
      details: { stale: stale.length, total: skills.length, embedders: ids },
    });
    return;
  }
  checks.push({
    backend: 'store',
    check: 'stored-vectors',
    status: 'fail',
    message: `${stale.length} of ${skills.length} skills in namespace "${namespace}" were embedded with ${ids.join(', ')}, not ${embedder.id}: recall and reconcile ignore them`,
    fix: `run "${reembed}" to re-embed them with the configured embedder`,
    details: { stale: stale.length, total: skills.length, embedders: ids },
  });
}

// ── distiller ───────────────────────────────────────────────────────────────

async function checkDistiller(
  config: SkillsmithConfig,
  deps: DoctorDeps,
  checks: DoctorCheck[],
  report: DoctorReport,
): Promise<void> {
  const add = (c: Omit<DoctorCheck, 'backend'>) => checks.push({ backend: 'llm', ...c });
  const llm = config.llm;
  if (config.distiller === 'heuristic') {
    const unused = llm.baseUrl || llm.model || llm.modelPath;
    add({
      check: 'distiller',
      status: 'ok',
      message: `heuristic distiller: embedded, deterministic, no model needed${unused ? ' (the llm settings are not used while "distiller" is "heuristic")' : ''}`,
    });
    return;
  }
  report.distiller.llm = summary(llm);
  if (llm.provider === 'openai') {
    if (!llm.baseUrl || !llm.model) {
      add({
        check: 'config',
        status: 'fail',
        message: `distiller is "llm" but llm.${!llm.baseUrl ? 'baseUrl' : 'model'} is not set`,
        fix: !llm.baseUrl
          ? 'set llm.baseUrl, e.g. "http://127.0.0.1:11434/v1" for Ollama'
          : 'set llm.model to a chat model the server serves',
      });
      return;
    }
    const model = (await createChatModel(llm, { fetch: deps.fetch, breaker: null })) as OpenAiChatModel;
    const client = model.client;
    const listing = await checkServer(client, llm.model, 'llm', probeTimeout(deps, llm.timeoutMs), add);
    if (listing === 'down') {
      for (const check of ['model', 'round-trip'])
        add({ check, status: 'skip', message: 'not checked: the server is not reachable' });
      return;
    }
    const listed = typeof listing === 'object' ? modelListed(llm.model, listing.ids) : undefined;
    const available = typeof listing === 'object' ? listing.ids.slice(0, 10).join(', ') || '(none)' : '';
    if (listed === true) add({ check: 'model', status: 'ok', message: `${llm.model} is served` });
    const started = Date.now();
    try {
      await model.check();
      if (listed === false)
        add({
          check: 'model',
          status: 'warn',
          message: `${llm.model} is not in the server's model list (${available}) but it answered`,
          fix: 'check that llm.model names the model you mean',
        });
      add({
        check: 'round-trip',
        status: 'ok',
        message: `a one-token chat completion took ${Date.now() - started} ms`,
      });
    } catch (err) {
      if (listed === false) {
        add({
          check: 'model',
          status: 'fail',
          message: `${llm.model} is not served (available: ${available})`,
          fix: `pull it (e.g. "ollama pull ${llm.model}") or set llm.model to one of the available models`,
        });
      }
      add({ check: 'round-trip', status: 'fail', message: message(err), fix: serverFix(err, 'llm', client.endpoint) });
    }
    return;
  }
  // llama-cpp
  if (!(await checkPackage('llama-cpp', deps, add, 'llm'))) return;
  if (!checkPath(llm.modelPath, 'llm.modelPath', 'file', add)) return;
  // No timeout: the doctor waits for the model to load and answer, however long that takes.
  const model = await createChatModel({ ...llm, timeoutMs: undefined }, { importer: deps.importer });
  const started = Date.now();
  try {
    await model.complete([{ role: 'user', content: 'Reply with the single word OK.' }], {
      temperature: 0,
      maxTokens: 1,
    });
    add({
      check: 'round-trip',
      status: 'ok',
      message: `${model.id} loaded and answered in ${Date.now() - started} ms`,
    });
  } catch (err) {
    add({
      check: 'round-trip',
      status: 'fail',
      message: message(err),
      fix: 'check that llm.modelPath is a GGUF chat model node-llama-cpp can load',
    });
  } finally {
    await model.close?.();
  }
}

// ── judge ───────────────────────────────────────────────────────────────────

/**
 * The LLM outcome judge (`capture.judge.mode` "llm"): its server answers and a one-token chat goes through. A
 * judge that fails leaves the sessions it should have judged `unknown`, so ingest learns nothing from them.
 */
async function checkJudge(config: SkillsmithConfig, deps: DoctorDeps, checks: DoctorCheck[]): Promise<void> {
  const judge = config.capture.judge;
  if (judge.mode !== 'llm') return;
  const add = (c: Omit<DoctorCheck, 'backend'>) => checks.push({ backend: 'judge', ...c });
  let model: Awaited<ReturnType<typeof createJudgeModel>>;
  try {
    model = createJudgeModel(judge, config.llm, { fetch: deps.fetch });
  } catch (err) {
    add({
      check: 'config',
      status: 'fail',
      message: message(err),
      fix: 'set capture.judge.baseUrl and capture.judge.model, or use capture.judge.mode "rule"',
    });
    return;
  }
  const chat = model as Partial<OpenAiChatModel>;
  if (!chat.client) {
    // The local GGUF model of llm.modelPath: loaded on first use, as the distiller's is (checked above when the
    // distiller is "llm").
    add({
      check: 'config',
      status: existsSync(config.llm.modelPath ?? '') ? 'ok' : 'fail',
      message: `the judge uses llm.modelPath (${config.llm.modelPath ?? 'not set'})`,
      fix: 'set llm.modelPath to a GGUF chat model, or capture.judge.baseUrl and capture.judge.model',
    });
    return;
  }
  const client = chat.client;
  const listing = await checkServer(
    client,
    judge.model ?? config.llm.model ?? '',
    'capture.judge',
    probeTimeout(deps, judge.timeoutMs ?? config.llm.timeoutMs),
    add,
  );
  if (listing === 'down') {
    add({ check: 'round-trip', status: 'skip', message: 'not checked: the server is not reachable' });
    return;
  }
  const started = Date.now();
  try {
    await (model as OpenAiChatModel).check();
    add({
      check: 'round-trip',
      status: 'ok',
      message: `${model.id}: a one-token chat completion took ${Date.now() - started} ms`,
    });
  } catch (err) {
    add({
      check: 'round-trip',
      status: 'fail',
      message: message(err),
      fix: serverFix(err, 'capture.judge', client.endpoint),
    });
  }
}

// ── helpers ─────────────────────────────────────────────────────────────────

async function checkPackage(
  which: 'llama-cpp' | 'transformers',
  deps: DoctorDeps,
  add: (c: Omit<DoctorCheck, 'backend'>) => void,
  key: string,
): Promise<boolean> {
  try {
    if (which === 'llama-cpp') await loadLlamaCpp('provider llama-cpp', deps.importer);
    else await loadTransformers(deps.importer);
    add({
      check: 'package',
      status: 'ok',
      message: `${which === 'llama-cpp' ? 'node-llama-cpp' : 'transformers.js'} is installed`,
    });
    return true;
  } catch (err) {
    add({
      check: 'package',
      status: 'fail',
      message: message(err),
      fix: `install the optional package, or set ${key === 'llm' ? '"distiller": "heuristic"' : 'embedder.provider to "glove"'}`,
    });
    return false;
  }
}

function checkPath(
  path: string | undefined,
  key: string,
  kind: 'file' | 'dir',
  add: (c: Omit<DoctorCheck, 'backend'>) => void,
): boolean {
  if (!path) {
    add({
      check: 'config',
      status: 'fail',
      message: `${key} is not set`,
      fix: `set ${key} to the local model ${kind === 'file' ? 'GGUF file' : 'folder'}`,
    });
    return false;
  }
  const full = resolve(path);
  const ok = existsSync(full) && (kind === 'file' ? statSync(full).isFile() : statSync(full).isDirectory());
  if (!ok) {
    add({
      check: 'config',
      status: 'fail',
      message: `${key}: no ${kind === 'file' ? 'file' : 'folder'} at ${full}`,
      fix: `correct ${key}`,
    });
    return false;
  }
  add({ check: 'config', status: 'ok', message: `${key} ${full} exists` });
  return true;
}

function serverFix(err: unknown, key: string, endpoint: string): string {
  const code = SkillsmithError.isInstance(err) ? err.code : '';
  if (code === 'ENDPOINT_UNREACHABLE')
    return `start the server (e.g. "ollama serve") or correct ${key}.baseUrl (now ${endpoint})`;
  if (code === 'ENDPOINT_TIMEOUT') return `the server is too slow or hung: check it, or raise ${key}.timeoutMs`;
  if (EndpointHttpError.isInstance(err)) {
    if (err.status === 401 || err.status === 403) return `the server refused the credentials: set ${key}.apiKey`;
    if (err.status === 404)
      return `check ${key}.model and ${key}.baseUrl (OpenAI-compatible base URLs usually end in /v1)`;
    return 'the server failed: check its logs';
  }
  if (code === 'MALFORMED_RESPONSE')
    return `${endpoint} does not answer like an OpenAI-compatible server: check ${key}.baseUrl`;
  if (code === 'MISSING_OPTIONAL_DEPENDENCY') return 'install the optional package named above';
  return `check the ${key} settings`;
}

function probeTimeout(deps: DoctorDeps, timeoutMs: number): number {
  return deps.probeTimeoutMs ?? Math.min(timeoutMs, 10_000);
}

function message(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/** Why a model with built-in thresholds is uncalibrated here (another vector length), from its threshold source. */
function uncalibratedBecause(source: string | undefined): string {
  const why = source?.match(/^generic default \(uncalibrated\): (.+)$/)?.[1];
  return why ? ` (${why})` : '';
}
