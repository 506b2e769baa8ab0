import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Skillsmith as a consumer gets it: `npm pack` (dist/ is built by the suite's global setup), the tarball
 * installed into an empty project next to TypeScript, and test/fixtures/library-consumer/consumer.ts (the
 * README's example) compiled with `strict` and `skipLibCheck: false`, then run against a real SQLite file.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const FIXTURE = join(ROOT, 'test', 'fixtures', 'library-consumer');
const installed = (pkg: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

/** npm's own variables (set when the suite runs under `npm test`) would point the child npm at this repo. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

function run(cmd: string, args: string[], cwd: string, extra: string[] = []) {
  const r = spawnSync(cmd, [...extra, ...args], { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 240_000 });
  return {
    status: r.status,
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
    stdout: r.stdout ?? '',
  };
}

let work: string;
let project: string;
let tarball: string;
let installOutput = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'skillsmith-consumer-'));
  project = join(work, 'project');
  cpSync(FIXTURE, project, { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: 'utf8',
    }),
  ) as { filename: string }[];
  tarball = join(work, packed[0].filename);
  // The registry is only asked for what the npm cache lacks. better-sqlite3 is pinned to the version this
  // repository built and installed without its install script: compiling it again would take minutes, so the
  // consumer gets the addon this repository compiled for the same version and Node.
  const sqlite = installed('better-sqlite3');
  const install = run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      tarball,
      `typescript@${installed('typescript')}`,
      `@types/node@${installed('@types/node')}`,
      `better-sqlite3@${sqlite}`,
    ],
    project,
  );
  if (install.status !== 0) throw new Error(`npm install of the packed tarball failed:\n${install.out}`);
  installOutput = install.out;
  const release = join(project, 'node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(release, { recursive: true });
  copyFileSync(
    join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
    join(release, 'better_sqlite3.node'),
  );
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the npm package, installed into a TypeScript project', () => {
  it('installs on this Node without an engine or config warning', () => {
    expect(installOutput).not.toMatch(/EBADENGINE|Unsupported engine|Unknown (project|env|user) config/);
  });

  it('ships the built entries, the embedder table and the README, and no tests, sources or build stamp', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/postgres.d.ts');
    for (const entry of ['sqlite', 'builtins', 'capture', 'instrument', 'skill-md'])
      expect(files).toContain(`package/dist/${entry}.d.ts`);
    expect(files).toContain('package/assets/glove-100k-int8.bin');
    expect(files).toContain('package/README.md');
    expect(
      files.filter(
        (f) =>
          f.startsWith('package/src/') ||
          f.startsWith('package/test/') ||
          f.includes('.test.') ||
          f.endsWith('.build-stamp'),
      ),
    ).toEqual([]);
  });

  it('compiles with strict and skipLibCheck: false (every public declaration resolves)', () => {
    const tsc = run(
      process.execPath,
      [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      project,
    );
    expect(tsc.out).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('opens a memory, records sessions, learns and recalls a skill, and never loads pg', () => {
    const db = join(work, 'memory.db');
    const r = run(process.execPath, [join(project, 'dist', 'consumer.js'), db], project, [
      '--import',
      join(project, 'no-pg.mjs'),
    ]);
    expect(r.status, r.out).toBe(0);
    const out = JSON.parse(r.stdout) as {
      created: string[];
      recalled: { name: string; tools: string[] }[];
      withoutRefund: string[];
      context: string;
      sessions: number;
      learnedEvent: boolean;
    };
    expect(out.created).toHaveLength(1);
    // Six sessions recorded (the last one failed), and the listener heard the skill learned.
    expect([out.sessions, out.learnedEvent]).toEqual([6, true]);
    expect(out.recalled.map((s) => s.name)).toEqual(out.created);
    expect(out.recalled[0].tools).toEqual(['get_order_details', 'refund_order', 'send_confirmation']);
    expect(out.withoutRefund).toEqual([]);
    expect(out.context).toContain('`refund_order`');
  });

  it('serves capture, instrumentation and the SKILL.md module from their own entries, none of which loads pg', () => {
    const script = [
      "const capture = await import('skillsmith/capture');",
      "const instrument = await import('skillsmith/instrument');",
      "const skillMd = await import('skillsmith/skill-md');",
      "const main = await import('skillsmith');",
      'console.log(JSON.stringify({',
      '  capture: [typeof capture.parseCaptureText, typeof capture.createJudge, typeof capture.resolvePrivacy],',
      '  instrument: [typeof instrument.createRecorder, typeof instrument.ToolRecorder],',
      '  skillMd: skillMd.validateSkillMd(skillMd.serializeSkillMd({ name: "x", description: "Does x.", license: "MIT", metadata: {}, body: "Do x." })).valid,',
      '  errors: [new main.NotFoundError("gone").code, main.SkillsmithError.isInstance(new main.ConfigError("bad"))],',
      '}));',
    ].join('\n');
    const r = run(process.execPath, ['--input-type=module', '-e', script], project, [
      '--import',
      join(project, 'no-pg.mjs'),
    ]);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      capture: ['function', 'function', 'function'],
      instrument: ['function', 'function'],
      skillMd: true,
      errors: ['NOT_FOUND', true],
    });
  });

  it('serves the SQLite store and the built-in back ends from their own entries, not from the main one', () => {
    const script = [
      "const sqlite = await import('skillsmith/sqlite');",
      "const builtins = await import('skillsmith/builtins');",
      "const main = await import('skillsmith');",
      'console.log(JSON.stringify({',
      '  sqlite: [typeof sqlite.openSqliteStore, typeof sqlite.SqliteStore, typeof sqlite.openStore, typeof sqlite.isPostgresUrl],',
      '  builtins: [typeof builtins.createGloveEmbedder, typeof builtins.GloveEmbedder, typeof builtins.HeuristicDistiller],',
      "  main: ['openSqliteStore', 'SqliteStore', 'openStore', 'GloveEmbedder', 'HeuristicDistiller'].filter((n) => n in main),",
      '}));',
    ].join('\n');
    const r = run(process.execPath, ['--input-type=module', '-e', script], project, [
      '--import',
      join(project, 'no-pg.mjs'),
    ]);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      sqlite: ['function', 'function', 'function', 'function'],
      builtins: ['function', 'function', 'function'],
      main: [],
    });
  });

  it('serves the PostgreSQL store from its own entry, skillsmith/postgres', () => {
    const r = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('skillsmith/postgres'); console.log(typeof m.openPgStore, typeof m.PgStore)",
      ],
      project,
    );
    expect(r.out.trim()).toBe('function function');
  });
});
