// The dashboard tests' browser. A fresh clone needs nothing installed beforehand: the dev dependency
// @sparticuz/chromium carries a Brotli-compressed Chromium for Linux x64 inside its npm tarball, unpacked once
// into node_modules/.cache. Where that package cannot run, a system Chromium is used; where there is none,
// the error names what to install. Nothing is skipped.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const SYSTEM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const INSTALL_HINT =
  'Run `npm install` (the dev dependency @sparticuz/chromium carries a Chromium for Linux x64), or install one ' +
  '(Debian: `apt-get update && apt-get install -y chromium`), or set SKILLSMITH_CHROMIUM to a Chromium executable.';

/** Path of the Chromium to drive: SKILLSMITH_CHROMIUM, else the packaged one (Linux x64), else a system one. */
export async function chromiumExecutable(): Promise<string> {
  const fromEnv = process.env.SKILLSMITH_CHROMIUM;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`SKILLSMITH_CHROMIUM=${fromEnv} does not exist. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const packaged = await packagedChromium();
  if (packaged) return packaged;
  const system = SYSTEM.find((p) => existsSync(p));
  if (system) return system;
  throw new Error(
    `no Chromium for the dashboard tests (no packaged one for ${process.platform}-${process.arch}, none of ${SYSTEM.join(', ')}). ${INSTALL_HINT}`,
  );
}

async function packagedChromium(): Promise<string | null> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  // A dev dependency of this repository: where npm put it (its exports do not include package.json).
  const pkg = join(ROOT, 'node_modules', '@sparticuz', 'chromium');
  if (!existsSync(join(pkg, 'bin', 'chromium.br'))) return null;
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(ROOT, 'node_modules', '.cache');
  const dir = join(cacheRoot, `skillsmith-chromium-${version}`);
  const exe = join(dir, 'chromium');
  if (existsSync(exe)) return exe;
  // The package unpacks into os.tmpdir() (it is made for AWS Lambda's /tmp): point that at a private staging
  // folder, then rename it into place, so concurrent suites never see a half-written browser.
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(`${dir}-`);
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    const { default: chromium } = (await import('@sparticuz/chromium')) as {
      default: { executablePath(input?: string): Promise<string> };
    };
    const unpacked = await chromium.executablePath(join(pkg, 'bin'));
    if (dirname(unpacked) !== staging)
      throw new Error(`@sparticuz/chromium unpacked to ${unpacked}, not into ${staging}`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `could not unpack the packaged Chromium (@sparticuz/chromium ${version}): ${(e as Error).message}. ${INSTALL_HINT}`,
      { cause: e },
    );
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  try {
    renameSync(staging, dir);
  } catch {
    // Another suite got there first: use its copy.
    rmSync(staging, { recursive: true, force: true });
  }
  return exe;
}
