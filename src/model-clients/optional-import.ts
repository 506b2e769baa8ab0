import { BackendLoadError } from '../errors/backend-load-error.js';
import { MissingOptionalDependencyError } from '../errors/missing-optional-dependency-error.js';

/** Loads a module by name; injectable so tests can hand in a stand-in for an optional package. */
export type ModuleImporter = (name: string) => Promise<unknown>;

/** The real loader: a dynamic import whose specifier TypeScript does not try to resolve. */
export const defaultImporter: ModuleImporter = (name) => import(name);

/** Optional packages Skillsmith can use, with the version we test against. */
export const OPTIONAL_PACKAGES: Record<'llamaCpp' | 'transformers', OptionalPackage> = {
  llamaCpp: { name: 'node-llama-cpp', install: 'node-llama-cpp@3.21.1' },
  transformers: {
    name: '@huggingface/transformers',
    install: '@huggingface/transformers@3',
    hint: 'Put onnxruntime-node-install=skip and onnxruntime-node-install-cuda=skip in .npmrc first, or onnxruntime tries to download CUDA binaries',
  },
};

export interface OptionalPackage {
  name: string;
  install: string;
  hint?: string;
}

/**
 * Imports an optional package, or throws MissingOptionalDependencyError ("install X to use Y") when it is
 * not installed, or BackendLoadError when it is installed but fails to load (e.g. a native binary).
 */
export async function importOptional<T>(
  pkg: OptionalPackage,
  usedBy: string,
  importer: ModuleImporter = defaultImporter,
): Promise<T> {
  try {
    return (await importer(pkg.name)) as T;
  } catch (e) {
    if (isModuleNotFound(e, pkg.name))
      throw new MissingOptionalDependencyError(pkg.name, pkg.install, usedBy, { cause: e, hint: pkg.hint });
    throw new BackendLoadError(pkg.name, `installed but failed to load: ${(e as Error)?.message ?? String(e)}`, {
      cause: e,
    });
  }
}

function isModuleNotFound(e: unknown, name: string): boolean {
  const code = (e as { code?: unknown })?.code;
  const message = String((e as { message?: unknown })?.message ?? '');
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    // Only when the package itself is missing, not one of its own dependencies.
    return (
      message.includes(`'${name}'`) || message.includes(`"${name}"`) || !/imported from .*node_modules/.test(message)
    );
  }
  return /Cannot find (package|module)/.test(message) && message.includes(name);
}
