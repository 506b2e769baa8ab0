// The model runtimes (node-llama-cpp with its llama.cpp binaries, transformers.js with onnxruntime: ~1.1 GB)
// are optional peer dependencies, not dev dependencies, so a contributor's `npm install` stays small. Their
// tests run against the real packages wherever they are installed; CI installs them (.ci/run) and there a
// missing runtime fails the suite instead of skipping it.

/**
 * Installs both runtimes without recording them in package.json or the lockfile (`--save-peer` because npm
 * otherwise leaves an optional peer dependency of the project uninstalled, even when named).
 */
export const INSTALL_RUNTIMES = 'npm run install:runtimes';

/** Whether `pkg` loads; without it, throws under CI and otherwise warns once that `file` is skipped. */
export async function runtimeInstalled(pkg: string, file: string): Promise<boolean> {
  const specifier = pkg; // a variable, so type checking does not need the package installed
  const installed = await import(specifier).then(
    () => true,
    () => false,
  );
  if (installed) return true;
  if (process.env.CI) throw new Error(`${pkg} is not installed, and CI runs ${file} against it: ${INSTALL_RUNTIMES}`);
  console.warn(`skipped ${file}: ${pkg} is not installed (${INSTALL_RUNTIMES} to run it)`);
  return false;
}
