import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BackendConfigError } from '../errors/backend-config-error.js';
import { BackendLoadError } from '../errors/backend-load-error.js';
import { importOptional, OPTIONAL_PACKAGES, type ModuleImporter } from './optional-import.js';

/**
 * node-llama-cpp (3.x, an optional dependency loaded on demand) with a local GGUF file, for chat and for
 * embeddings. Only the small part of its API that Skillsmith uses is typed here.
 */

export interface LlamaCppModule {
  getLlama(options?: Record<string, unknown>): Promise<Llama>;
  LlamaChatSession: new (options: { contextSequence: unknown; systemPrompt?: string }) => LlamaChatSessionLike;
}
export interface Llama {
  loadModel(options: { modelPath: string }): Promise<LlamaModelLike>;
}
export interface LlamaModelLike {
  createContext(options?: Record<string, unknown>): Promise<LlamaContextLike>;
  createEmbeddingContext(options?: Record<string, unknown>): Promise<LlamaEmbeddingContextLike>;
  dispose?(): Promise<void>;
}
export interface LlamaContextLike {
  getSequence(): unknown;
  dispose?(): Promise<void>;
}
export interface LlamaEmbeddingContextLike {
  getEmbeddingFor(text: string): Promise<{ vector: ArrayLike<number> }>;
  dispose?(): Promise<void>;
}
export interface LlamaChatSessionLike {
  prompt(text: string, options?: { temperature?: number; maxTokens?: number; signal?: AbortSignal }): Promise<string>;
  dispose?(): void;
}

export const LLAMA_CPP_PACKAGE = OPTIONAL_PACKAGES.llamaCpp;

/** Loads the package or throws "install node-llama-cpp@3.21.1 to use provider llama-cpp". */
export function loadLlamaCpp(usedBy = 'provider llama-cpp', importer?: ModuleImporter): Promise<LlamaCppModule> {
  return importOptional<LlamaCppModule>(LLAMA_CPP_PACKAGE, usedBy, importer);
}

/** The GGUF path, resolved, or a BackendConfigError naming the key to set. */
export function requireGgufPath(modelPath: string | undefined, key: string): string {
  if (!modelPath)
    throw new BackendConfigError(
      key,
      `${key} is not set: provider llama-cpp needs the path of a local GGUF model file`,
    );
  const path = resolve(modelPath);
  if (!existsSync(path) || !statSync(path).isFile())
    throw new BackendConfigError(key, `${key}: no GGUF file at ${path}`);
  return path;
}

/**
 * One llama.cpp runtime per process (per loaded package): every getLlama() call starts another one, and
 * only the first routes llama.cpp's own log lines through node-llama-cpp's log level.
 */
const runtimes = new WeakMap<LlamaCppModule, Promise<Llama>>();
function runtimeOf(module: LlamaCppModule): Promise<Llama> {
  let runtime = runtimes.get(module);
  if (!runtime) {
    runtime = module.getLlama();
    runtimes.set(module, runtime);
    runtime.catch(() => runtimes.delete(module)); // a failed start may be retried
  }
  return runtime;
}

export interface LlamaCppLoadOptions {
  modelPath: string;
  importer?: ModuleImporter;
  usedBy?: string;
}

/** Loads the package, the runtime and the model, with errors that say which step failed. */
export async function loadLlamaModel(
  opts: LlamaCppLoadOptions,
): Promise<{ module: LlamaCppModule; model: LlamaModelLike }> {
  const notGguf = ggufHeaderProblem(opts.modelPath);
  if (notGguf) throw new BackendLoadError('node-llama-cpp', `cannot load ${opts.modelPath}: ${notGguf}`);
  const module = await loadLlamaCpp(opts.usedBy, opts.importer);
  let llama: Llama;
  try {
    llama = await runtimeOf(module);
  } catch (e) {
    throw new BackendLoadError('node-llama-cpp', `cannot start the llama.cpp runtime: ${(e as Error)?.message ?? e}`, {
      cause: e,
    });
  }
  try {
    return { module, model: await llama.loadModel({ modelPath: opts.modelPath }) };
  } catch (e) {
    throw new BackendLoadError('node-llama-cpp', `cannot load ${opts.modelPath}: ${(e as Error)?.message ?? e}`, {
      cause: e,
    });
  }
}

/**
 * Why the file cannot be a GGUF model, or null when its header is plausible. Checked before node-llama-cpp
 * sees the file: its metadata reader (3.21.1) can spin forever on a file that merely starts with "GGUF".
 */
export function ggufHeaderProblem(path: string): string | null {
  const header = Buffer.alloc(24);
  let size: number;
  let read: number;
  try {
    size = statSync(path).size;
    const fd = openSync(path, 'r');
    try {
      read = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return `cannot read the file (${(e as Error).message})`;
  }
  if (read < header.length || header.toString('latin1', 0, 4) !== 'GGUF')
    return 'not a GGUF model file (it does not start with the GGUF header)';
  const version = header.readUInt32LE(4);
  if (version !== 2 && version !== 3)
    return `unsupported GGUF version ${version} (node-llama-cpp reads versions 2 and 3)`;
  const tensors = header.readBigUInt64LE(8);
  const entries = header.readBigUInt64LE(16);
  // Every tensor descriptor and metadata entry takes at least 8 bytes: more than the file holds is corrupt.
  if (tensors === 0n || (tensors + entries) * 8n > BigInt(size))
    return `a corrupt or truncated GGUF file (${tensors} tensors and ${entries} metadata entries declared in ${size} bytes)`;
  return null;
}
