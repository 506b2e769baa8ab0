import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * What a new contributor meets on `npm install`: the Node versions package.json promises are the ones every
 * installed package accepts (no EBADENGINE warning), the Node running this suite (CI's) is among them, the
 * README says the same, and the lockfile already records package.json as it is, so an install in a clean
 * clone leaves `git status` clean.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  engines?: { node?: string } | string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
}
const pkg = JSON.parse(read('package.json')) as LockEntry & { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
const promised = pkg.engines.node;

/** npm's own matching of a package's os/cpu list against this machine ("!x" excludes). */
function fits(list: string[] | undefined, here: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${here}`)) return false;
  return list.includes(here) || list.every((x) => x.startsWith('!'));
}

/** Lockfile entries npm installs on this platform, with the Node range each declares. */
function installedEngines(): { name: string; range: string }[] {
  return Object.entries(lock.packages)
    .filter(([path, e]) => path !== '' && fits(e.os, process.platform) && fits(e.cpu, process.arch))
    .flatMap(([path, e]) => {
      const range = Array.isArray(e.engines) ? undefined : e.engines?.node;
      return range ? [{ name: path.replace(/^.*node_modules\//, ''), range }] : [];
    });
}

/** The lowest version of each part of a range: `^20.19.0 || >=22.12.0` -> 20.19.0 and 22.12.0. */
function lowestVersions(range: string): string[] {
  return range.split('||').map((part) => {
    const low = semver.minVersion(part.trim());
    if (!low) throw new Error(`package.json engines.node "${range}": "${part}" has no lowest version`);
    return low.version;
  });
}

describe('engines', () => {
  it('the Node running this suite (CI runs it on the machine Node) is one package.json promises', () => {
    expect(semver.satisfies(process.versions.node, promised), `${process.versions.node} vs "${promised}"`).toBe(true);
  });

  it('every package installed on this platform accepts the oldest Node of each line package.json promises', () => {
    const lows = lowestVersions(promised);
    expect(lows.length).toBeGreaterThan(0);
    const refused = lows.flatMap((v) =>
      installedEngines()
        .filter((e) => !semver.satisfies(v, e.range))
        .map((e) => `${e.name} wants node "${e.range}", not ${v}`),
    );
    expect(refused).toEqual([]);
  });

  it('the README states the same Node versions as package.json', () => {
    expect(read('README.md')).toContain(`\`${promised}\``);
  });
});

describe('the lockfile', () => {
  it('records package.json as it is, so npm install in a clean clone rewrites nothing', () => {
    const root = lock.packages[''];
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'peerDependenciesMeta'] as const)
      expect(root[field], field).toEqual(pkg[field]);
    expect(root.engines, 'engines').toEqual(pkg.engines);
    expect(root.version, 'version').toBe(pkg.version);
  });

  it('has every dependency package.json names at a version its range accepts', () => {
    const wanted = { ...pkg.dependencies, ...pkg.devDependencies };
    const off = Object.entries(wanted).flatMap(([name, range]) => {
      const v = lock.packages[`node_modules/${name}`]?.version;
      return v && semver.satisfies(v, range) ? [] : [`${name}@${v ?? 'missing'} vs "${range}"`];
    });
    expect(off).toEqual([]);
  });
});

describe('npx skillsmith', () => {
  it('on first use in an empty npm cache, runs the CLI without rebuilding dist/ (prepare builds only when stale)', () => {
    const stamp = join(ROOT, 'dist', '.build-stamp');
    const before = statSync(stamp).mtimeMs;
    const cache = mkdtempSync(join(tmpdir(), 'skillsmith-npx-cache-'));
    try {
      // npm's own variables (set under `npm test`) would point the child npm at this run's config.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      // npx installs this package into <cache>/_npx on first use and runs its prepare script there.
      const r = spawnSync('npx', ['--yes', 'skillsmith', '--help'], {
        cwd: ROOT,
        env: { ...env, npm_config_cache: cache, npm_config_offline: 'true' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^skillsmith: procedural memory for LLM agents/);
      expect(r.stderr).not.toMatch(/building dist/);
      expect(statSync(stamp).mtimeMs).toBe(before);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
