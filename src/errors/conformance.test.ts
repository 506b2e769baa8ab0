import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as builtins from '../builtins.js';
import * as capture from '../capture.js';
import * as main from '../index.js';
import * as instrument from '../instrument.js';
import * as postgres from '../postgres.js';
import * as skillMd from '../skill-md.js';
import * as sqlite from '../sqlite.js';
import * as family from './index.js';

/**
 * The error family as a caller sees it, checked by walking the public entries: every error class they export
 * is a coded SkillsmithError, each code is unique and has a REST status and a CLI exit code in the one table.
 */
const ENTRIES: Record<string, Record<string, unknown>> = {
  'src/index.ts': main,
  'src/sqlite.ts': sqlite,
  'src/postgres.ts': postgres,
  'src/builtins.ts': builtins,
  'src/capture.ts': capture,
  'src/instrument.ts': instrument,
  'src/skill-md.ts': skillMd,
};

type ErrorClass = (abstract new (...args: never[]) => Error) & { code?: unknown; isInstance?: (v: unknown) => boolean };

const isErrorClass = (v: unknown): v is ErrorClass => typeof v === 'function' && v.prototype instanceof Error;

function errorClasses(entry: Record<string, unknown>): [string, ErrorClass][] {
  return Object.entries(entry).filter((pair): pair is [string, ErrorClass] => isErrorClass(pair[1]));
}

const mainClasses = errorClasses(main);
const codeOf = (C: ErrorClass) => C.code as string;

describe('the error family, walked from the public entries', () => {
  it('every exported error class extends SkillsmithError and has a non-empty code of its own', () => {
    for (const [file, entry] of Object.entries(ENTRIES)) {
      for (const [name, C] of errorClasses(entry)) {
        expect(
          C === main.SkillsmithError || C.prototype instanceof main.SkillsmithError,
          `${file}: ${name} extends SkillsmithError`,
        ).toBe(true);
        expect(typeof C.code === 'string' && C.code.length > 0, `${file}: ${name} has a code`).toBe(true);
        expect(Object.hasOwn(C, 'code'), `${file}: ${name} declares its own code`).toBe(true);
      }
    }
    const codes = mainClasses.map(([, C]) => codeOf(C));
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('every code is in the status/exit table, and the table names no code without a class', () => {
    const codes = new Set(mainClasses.map(([, C]) => codeOf(C)));
    for (const code of codes) expect(main.ERROR_OUTCOMES[code], code).toBeDefined();
    expect(Object.keys(main.ERROR_OUTCOMES).filter((c) => !codes.has(c))).toEqual([]);
  });

  it('the main entry exports every class of the family (src/errors/), and the subpath entries none of their own', () => {
    const familyClasses = errorClasses(family);
    expect(familyClasses.length).toBeGreaterThan(20);
    for (const [name, C] of familyClasses) expect(main[name as keyof typeof main], name).toBe(C);
    for (const [file, entry] of Object.entries(ENTRIES)) {
      for (const [name, C] of errorClasses(entry))
        expect(family[name as keyof typeof family], `${file}: ${name}`).toBe(C);
    }
  });

  it('isInstance recognises an error by brand and code, also one made by another copy of the module', () => {
    for (const [name, C] of mainClasses) {
      if (C === main.SkillsmithError) continue;
      const foreign = Object.assign(new Error('made elsewhere'), {
        code: codeOf(C),
        [Symbol.for('skillsmith.error')]: true,
      });
      expect(C.isInstance!(foreign), name).toBe(true);
      expect(main.SkillsmithError.isInstance(foreign), name).toBe(true);
      for (const [other, D] of mainClasses)
        if (D !== C && D !== main.SkillsmithError)
          expect(D.isInstance!(foreign), `${other} is not ${name}`).toBe(false);
      expect(C.isInstance!(Object.assign(new Error('x'), { code: codeOf(C) })), `${name} needs the brand`).toBe(false);
    }
    const e = new main.NotFoundError('no skill named "x"');
    expect([e.name, e.code, e.message, main.errorCode(e)]).toEqual([
      'NotFoundError',
      'NOT_FOUND',
      'no skill named "x"',
      'NOT_FOUND',
    ]);
    expect(e).toBeInstanceOf(Error);
  });
});

describe('statuses and exit codes follow the code', () => {
  it('keeps the REST statuses of each kind of error', () => {
    expect(main.httpStatusOf(new main.CompileError('x'))).toBe(400);
    expect(main.httpStatusOf(new main.InputError('x'))).toBe(400);
    expect(main.httpStatusOf(new RangeError('x'))).toBe(400);
    expect(main.httpStatusOf(new main.NotFoundError('x'))).toBe(404);
    expect(main.httpStatusOf(new main.PassLockedError('x'))).toBe(409);
    expect(main.httpStatusOf(new main.SessionStateError('x'))).toBe(409);
    expect(main.httpStatusOf(new main.DisabledError('x'))).toBe(503);
    expect(main.httpStatusOf(new main.ReadOnlyMemoryError('x'))).toBe(409);
    // A model server that is down or slow: the request may be sent again later.
    expect(main.httpStatusOf(new main.EndpointUnreachableError('POST http://m/v1/embeddings', 'ECONNREFUSED'))).toBe(
      503,
    );
    expect(main.httpStatusOf(new main.CircuitOpenError('embedder', 3, new Date().toISOString()))).toBe(503);
    expect(main.httpStatusOf(new main.HttpError(413, 'x'))).toBe(413);
    expect(main.httpStatusOf(new main.ConfigError('x'))).toBe(500);
    expect(main.httpStatusOf(new Error('x'))).toBe(500);
    expect(main.httpStatusOf('not an error')).toBe(500);
  });

  it('exits 2 for usage and configuration mistakes, whichever class says so, and 1 for the rest', () => {
    expect(main.exitCodeOf(new main.UsageError('x'))).toBe(2);
    expect(main.exitCodeOf(new main.ConfigError('x'))).toBe(2);
    expect(main.exitCodeOf(new main.BackendConfigError('llm.model', 'x'))).toBe(2);
    expect(main.exitCodeOf(new main.UnsafeBindError('x'))).toBe(2);
    expect(main.exitCodeOf(new main.NotFoundError('x'))).toBe(1);
    expect(main.exitCodeOf(new main.TransferError('x'))).toBe(1);
    expect(main.exitCodeOf(new Error('x'))).toBe(1);
    // By code, not by class: a ConfigError from another copy of the module exits 2 too.
    expect(
      main.exitCodeOf(
        Object.assign(new Error('x'), { code: 'CONFIG_INVALID', [Symbol.for('skillsmith.error')]: true }),
      ),
    ).toBe(2);
  });
});

describe('the public entries', () => {
  it('give every export a one-line doc comment', () => {
    for (const file of Object.keys(ENTRIES)) {
      const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (line.startsWith('export ')) expect(lines[i - 1], `${file}:${i + 1} ${line}`).toMatch(/^\/\*\* .+ \*\/$/);
      });
    }
  });

  it('keep the main entry small: capture, instrumentation, SKILL.md and PostgreSQL live behind subpaths', () => {
    for (const name of [
      'createRecorder',
      'parseCaptureText',
      'createJudge',
      'resolvePrivacy',
      'parseSkillMd',
      'validateSkillMd',
      'openPgStore',
      'PgStore',
    ]) {
      expect(name in main, name).toBe(false);
    }
    expect(Object.keys(instrument)).toEqual(
      expect.arrayContaining(['createRecorder', 'ToolRecorder', 'RecordedSession']),
    );
    expect(Object.keys(capture)).toEqual(
      expect.arrayContaining(['parseCaptureText', 'createJudge', 'RuleJudge', 'LlmJudge', 'resolvePrivacy']),
    );
    expect(Object.keys(skillMd).sort()).toEqual(['parseSkillMd', 'serializeSkillMd', 'validateSkillMd']);
    expect(Object.keys(postgres).sort()).toEqual(['PgStore', 'openPgStore']);
  });
});
