// A JSONL log is read line by line as it is parsed (capture/read-log.ts LogLines; compressed, LogStream as it is
// decompressed), never whole: what it stores must be what a whole read of its text stores. Every JSONL fixture of each format, the week of Claude Code transcripts, and a
// long generated transcript (big results, secrets where results are cut, progress lines, snapshots), read in chunks
// so small that lines and UTF-8 characters straddle them.
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readLog } from '../src/capture/ingest.js';
import { parseCaptureStream, parseCaptureText, type ParseOptions, readsLineByLine } from '../src/capture/parse-file.js';
import { resolvePrivacy } from '../src/capture/privacy.js';
import { slimCodexLine } from '../src/capture/codex-rollout.js';
import { slimGeminiLine } from '../src/capture/gemini.js';
import { closeLog, LogLines, LogStream, openLog } from '../src/capture/read-log.js';
import type { IngestFormat } from '../src/capture/types.js';
import { writeBigTranscript } from './fixtures/big-transcript.mjs';
import { week } from './fixtures/claude-code-week.mjs';
import { testMemories } from './support/memories.js';
import { parseOptions } from './support/parse-options.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'capture');
const dir = mkdtempSync(join(tmpdir(), 'skillsmith-linewise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options = (file: string, over: Partial<ParseOptions> = {}): ParseOptions =>
  parseOptions(file, '2026-01-01T00:00:00.000Z', { privacy: resolvePrivacy({}), ...over });

/**
 * The file parsed whole, line by line (in chunks of `chunk` bytes), and gzip-compressed as it is decompressed (its
 * compressed bytes read `chunk` at a time, under its own name): the reads, and whether each was read by line.
 */
async function bothReads(path: string, over: Partial<ParseOptions>, chunk: number) {
  const text = readFileSync(path);
  const whole = parseCaptureText(text.toString('utf8'), options(path, over));
  const input = await openLog(path, readsLineByLine, { chunkBytes: chunk });
  const linewise = parseCaptureText(input as LogLines, options(path, over));
  closeLog(input);
  const gz = join(dir, 'compressed.gz');
  writeFileSync(gz, gzipSync(text));
  const stream = await openLog(gz, readsLineByLine, { chunkBytes: chunk });
  const gzipped = await parseCaptureStream(stream as LogStream, options(path, over));
  return { whole, linewise, gzipped, byLine: input instanceof LogLines && stream instanceof LogStream };
}

const jsonl = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => join(FIXTURES, f));
const weekFiles = [...week().files].slice(0, 6).map(([id, lines]) => {
  const path = join(dir, `week-${id}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
});

describe('a JSONL log read line by line stores what a whole read stores', () => {
  it.each([...jsonl, ...weekFiles])('%s', async (path) => {
    for (const over of [{}, { resultChars: 0 }, { privacy: undefined, resultChars: 50 }])
      for (const chunk of [7, 1 << 20]) {
        const { whole, linewise, gzipped, byLine } = await bothReads(path, over, chunk);
        expect(byLine).toBe(true);
        expect(linewise).toEqual(whole);
        expect(gzipped).toEqual(whole);
      }
  });

  it('each streamed format given by name', async () => {
    const given: [string, IngestFormat][] = [
      ['claude-code-2.1.jsonl', 'claude-code'],
      ['codex-rollout.jsonl', 'codex'],
      ['gemini-cli-session.jsonl', 'gemini'],
      ['ai-sdk-v4-messages.jsonl', 'ai-sdk'],
      ['openai-agents-items.jsonl', 'openai-agents'],
      ['openai-conversations.jsonl', 'openai'],
      ['codex-rollout.jsonl', 'claude-code'],
    ];
    for (const [name, format] of given) {
      const { whole, linewise, gzipped } = await bothReads(join(FIXTURES, name), { format }, 13);
      expect(linewise, `${name} as ${format}`).toEqual(whole);
      expect(gzipped, `${name} as ${format}, compressed`).toEqual(whole);
    }
  });

  it('a long Claude Code transcript: results cut as they are read, secrets at the cut still redacted', async () => {
    const path = join(dir, 'long.jsonl');
    const written = writeBigTranscript(path, 6);
    expect(written.calls).toBeGreaterThan(50);
    for (const over of [{}, { resultChars: 200 }, { format: 'claude-code' as const }, { privacy: undefined }]) {
      const { whole, linewise, gzipped, byLine } = await bothReads(path, over, 4096);
      expect(byLine).toBe(true);
      expect(linewise).toEqual(whole);
      expect(gzipped).toEqual(whole);
      expect(whole.sessions.length).toBe(written.tasks);
    }
    // What is stored of a result holds no secret the generator put in it, wherever it sat.
    const stored = (await bothReads(path, {}, 1 << 20)).linewise.sessions.flatMap((s) => s.calls.map((c) => c.result));
    expect(stored.some((r) => r.includes('[REDACTED:'))).toBe(true);
    for (const secret of ['AKIAIOSFODNN7EXAMPLE', 'Sup3rS3cretPassw0rd', 'ghp_16C7e42F', 'BEGIN RSA PRIVATE KEY'])
      expect(stored.filter((r) => r.includes(secret))).toEqual([]);
  });

  it('a long Codex CLI rollout: the events it does not read cut as they are read', async () => {
    // The fixture's turns 30 times (past the 50 records detection judges), new call ids, each output long and each
    // call's end event carrying it again, as Codex CLI writes `exec_command_end`.
    const fixture = readFileSync(join(FIXTURES, 'codex-rollout-0.104.jsonl'), 'utf8').trim().split('\n');
    const out: string[] = [fixture[0]!];
    for (let k = 0; k < 30; k++)
      for (const raw of fixture.slice(1)) {
        const line = JSON.parse(raw) as { type: string; payload: Record<string, unknown> };
        const p = line.payload;
        if (typeof p.call_id === 'string') p.call_id = `${p.call_id}-${k}`;
        if (p.type === 'function_call_output' && typeof p.output === 'string') {
          p.output = `${p.output}${'output line of a long command\n'.repeat(400 + k)}`;
          out.push(JSON.stringify(line));
          const end = { type: 'exec_command_end', call_id: p.call_id, stdout: p.output, aggregated_output: p.output };
          out.push(
            JSON.stringify({ timestamp: (line as { timestamp?: string }).timestamp, type: 'event_msg', payload: end }),
          );
          continue;
        }
        out.push(JSON.stringify(line));
      }
    const path = join(dir, 'long-rollout.jsonl');
    writeFileSync(path, `${out.join('\n')}\n`);
    for (const over of [{}, { format: 'codex' as const }, { resultChars: 100 }]) {
      const { whole, linewise, gzipped, byLine } = await bothReads(path, over, 1000);
      expect(byLine).toBe(true);
      expect(whole.format).toBe('codex');
      expect(whole.sessions.length).toBeGreaterThan(30);
      expect(linewise).toEqual(whole);
      expect(gzipped).toEqual(whole);
    }
  });

  it("a Codex CLI rollout's long tool outputs: cut as they are read, their exit codes as the whole output says", async () => {
    // Outputs far over what is kept (4 x resultChars + 4,097), in each form Codex writes: the JSON form whose exit code
    // 0 comes after a text that says "Exit code: 1", the JSON form of a failure, a text whose exit code is past the
    // cut, a plain text, and a content part; secrets at the cut.
    const fixture = readFileSync(join(FIXTURES, 'codex-rollout-0.104.jsonl'), 'utf8').trim().split('\n');
    const long = (k: number) => `${'a line of output, AKIAIOSFODNN7EXAMPLE here and there\n'.repeat(200 + k)}`;
    const forms = [
      (t: string) => JSON.stringify({ output: `Exit code: 1\n${t}`, metadata: { exit_code: 0 } }),
      (t: string) => JSON.stringify({ output: t, metadata: { exit_code: 2 } }),
      (t: string) => `${t}\nExit code: 3\n`,
      (t: string) => t,
      (t: string) => ({ type: 'output_text', text: t }),
    ];
    const out: string[] = [fixture[0]!];
    for (let k = 0; k < 25; k++)
      for (const raw of fixture.slice(1)) {
        const line = JSON.parse(raw) as { type: string; payload: Record<string, unknown> };
        const p = line.payload;
        if (typeof p.call_id === 'string') p.call_id = `${p.call_id}-${k}`;
        if (p.type === 'function_call_output' && typeof p.output === 'string') p.output = forms[k % 5]!(long(k));
        out.push(JSON.stringify(line));
      }
    const path = join(dir, 'long-outputs.jsonl');
    writeFileSync(path, `${out.join('\n')}\n`);
    for (const over of [{}, { format: 'codex' as const }, { resultChars: 100 }, { privacy: undefined }]) {
      const { whole, linewise, gzipped } = await bothReads(path, over, 4096);
      expect(whole.format).toBe('codex');
      const calls = whole.sessions.flatMap((x) => x.calls);
      expect(calls.filter((c) => !c.ok).length).toBeGreaterThan(10);
      expect(linewise).toEqual(whole);
      expect(gzipped).toEqual(whole);
    }
    // What a line keeps of an output: its first characters, not the whole of it.
    const keep = 4 * 2000 + 4097;
    for (const raw of out) {
      const slim = slimCodexLine(JSON.parse(raw), keep) as { payload?: { output?: unknown } };
      expect(JSON.stringify(slim.payload?.output ?? '').length).toBeLessThan(keep + 2000);
    }
  });

  it("a Gemini CLI session log's long tool results: cut as they are read, failures as the whole result says", async () => {
    // The fixture's records 30 times (past the 50 objects detection judges), new ids, each shell output long; one in
    // three says its exit code past the cut.
    const fixture = readFileSync(join(FIXTURES, 'gemini-cli-session.jsonl'), 'utf8').trim().split('\n');
    const out: string[] = [fixture[0]!];
    for (let k = 0; k < 30; k++)
      for (const raw of fixture.slice(1)) {
        const rec = JSON.parse(raw) as Record<string, unknown>;
        if (typeof rec.id === 'string') rec.id = `${rec.id}-${k}`;
        if (typeof rec.$rewindTo === 'string') rec.$rewindTo = `${rec.$rewindTo}-${k}`;
        for (const tc of (rec.toolCalls ?? []) as Record<string, unknown>[]) {
          tc.id = `${tc.id}-${k}`;
          for (const part of (tc.result ?? []) as {
            functionResponse?: { id?: string; response?: { output?: string } };
          }[]) {
            const fr = part.functionResponse;
            if (!fr?.response || typeof fr.response.output !== 'string') continue;
            fr.id = `${fr.id}-${k}`;
            fr.response.output += `${'\nbuild output, password=Sup3rS3cretPassw0rd'.repeat(300 + k)}${k % 3 === 1 ? '\nExit Code: 1' : ''}`;
            tc.resultDisplay = fr.response.output;
          }
        }
        out.push(JSON.stringify(rec));
      }
    const path = join(dir, 'long-gemini.jsonl');
    writeFileSync(path, `${out.join('\n')}\n`);
    for (const over of [{}, { format: 'gemini' as const }, { resultChars: 100 }, { privacy: undefined }]) {
      const { whole, linewise, gzipped } = await bothReads(path, over, 4096);
      expect(whole.format).toBe('gemini');
      expect(whole.sessions.length).toBeGreaterThan(30);
      expect(linewise).toEqual(whole);
      expect(gzipped).toEqual(whole);
    }
    const keep = 4 * 2000 + 4097;
    for (const raw of out)
      expect(JSON.stringify(slimGeminiLine(JSON.parse(raw), keep)).length).toBeLessThan(keep + 4000);
  });

  const memories = testMemories('linewise');

  it('ingestFile (line by line) stores the sessions and calls ingestText of the whole text stores', async () => {
    const path = join(dir, 'long-ingest.jsonl');
    writeBigTranscript(path, 3, 5);
    const log = await readLog(path);
    expect(log).toBeInstanceOf(LogLines);
    closeLog(log);
    const byLine = await memories.fresh();
    const whole = await memories.fresh();
    const a = await byLine.ingestFile(path, { judge: 'rule' });
    const b = await whole.ingestText(readFileSync(path, 'utf8'), { name: path, judge: 'rule' });
    expect(a).toEqual(b);
    expect(a.inserted).toBeGreaterThan(1);
    expect(await byLine.sessions.list({ limit: 1000 })).toEqual(await whole.sessions.list({ limit: 1000 }));
  });
});
