import { mulberry32 } from '#dist/support/random.js';
import { REPO } from './paths.js';
// Synthetic sessions for benchmarks: perturbed copies of real traces.
//
// Each synthetic session copies one real session picked at random (so the mix of tasks, tool paths and
// success rates follows the real traces), gets a new id, and has its identifiers and numbers replaced
// deterministically: every run of 3+ digits becomes other digits of the same length, consistently across
// the goal, the call arguments and the call results of that session (so data flow "arg <- earlier result"
// survives). Years (19xx/20xx) and 1-2 digit numbers (days, months, counts) are kept. Most goals also get
// a persona detail appended, so goal texts vary beyond their entities (which goal normalisation erases)
// and the sessions spread over many clusters, as a real population of users would.
//
// Everything is a pure function of (seed, index): the same seed gives the same sessions whatever the batch
// size, and session i of a 10k set is session i of a 100k set.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaptureText } from '#dist/capture/parse-file.js';
import type { Session, ToolCall } from '#dist/domain/types.js';

export interface SyntheticOptions {
  namespace?: string;
  /** Fraction of goals that get a persona detail appended (default 0.9). */
  personaRate?: number;
  /** Start time of session 0; session i starts i seconds later (default 2025-01-01). */
  startAt?: Date;
}

/** The real trace files used when none are given: the repo's tau traces, else the example sample. */
export function defaultSourceFiles(): string[] {
  const repo = REPO;
  const traces = join(repo, 'test/fixtures/traces');
  const files = ['tau-dev.jsonl', 'tau-retail-extra.jsonl'].map((f) => join(traces, f)).filter((f) => existsSync(f));
  return files.length ? files : [join(repo, 'examples/tau-sample.jsonl')];
}

const sourceCache = new Map<string, Session[]>();

/** Parses real trace files (normalized JSONL or OpenAI logs) through the capture parser; cached per file list. */
export function loadSourceSessions(sourceFiles: readonly string[]): Session[] {
  const key = sourceFiles.join('\n');
  let sessions = sourceCache.get(key);
  if (!sessions) {
    sessions = [];
    for (const file of sourceFiles) {
      const parsed = parseCaptureText(readFileSync(file, 'utf8'), {
        file,
        namespace: 'default',
        format: 'auto',
        maxRecordBytes: 4 * 1024 * 1024,
        resultChars: 2000,
        maxCallsPerSession: 1000,
        now: '2025-01-01T00:00:00.000Z',
      });
      sessions.push(...parsed.sessions);
    }
    if (sessions.length === 0) throw new Error(`no sessions in ${sourceFiles.join(', ')}`);
    sourceCache.set(key, sessions);
  }
  return sessions;
}

/** `count` synthetic sessions as one array (for small counts; see `syntheticSessionBatches` for big ones). */
export function syntheticSessions(
  count: number,
  seed: number,
  sourceFiles: readonly string[] = defaultSourceFiles(),
  opts: SyntheticOptions = {},
): Session[] {
  const out: Session[] = [];
  for (const batch of syntheticSessionBatches(count, seed, sourceFiles, 1000, opts)) out.push(...batch);
  return out;
}

/** The same sessions as `syntheticSessions`, generated lazily `batchSize` at a time (bounded memory). */
export function* syntheticSessionBatches(
  count: number,
  seed: number,
  sourceFiles: readonly string[] = defaultSourceFiles(),
  batchSize = 1000,
  opts: SyntheticOptions = {},
): Generator<Session[]> {
  const sources = loadSourceSessions(sourceFiles);
  for (let start = 0; start < count; start += batchSize) {
    const batch: Session[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i++)
      batch.push(syntheticSession(sources, seed, i, opts));
    yield batch;
  }
}

/** Session `index` of the synthetic set `seed`. */
export function syntheticSession(
  sources: readonly Session[],
  seed: number,
  index: number,
  opts: SyntheticOptions = {},
): Session {
  const rand = mulberry32(mixSeed(seed, index));
  const src = sources[Math.floor(rand() * sources.length)];
  const perturb = digitPerturber(rand);
  const personaRate = opts.personaRate ?? 0.9;
  const goal = perturb(src.goal) + (rand() < personaRate ? ` ${personaDetail(rand)}` : '');
  const started = new Date((opts.startAt ?? new Date('2025-01-01T00:00:00Z')).getTime() + index * 1000);
  const calls: ToolCall[] = src.calls.map((c) => ({
    ...c,
    args: perturbValue(c.args, perturb) as Record<string, unknown>,
    result: perturb(c.result),
    error: c.error == null ? null : perturb(c.error),
  }));
  return {
    id: `syn-${seed}-${index}`,
    namespace: opts.namespace ?? src.namespace,
    goal,
    outcome: src.outcome,
    reward: src.reward,
    agentId: src.agentId,
    source: src.source,
    startedAt: started.toISOString(),
    endedAt: null,
    calls,
    labels: { ...(src.labels ?? {}), synthetic_of: src.id },
  };
}

/**
 * Other wordings of the task of synthetic session `index`, as the sessions a learned skill's exemplars come from
 * would word it: its source's first user message when the trace has one, then the source's goal with other
 * identifiers and persona details. Deterministic for (seed, index).
 */
export function goalWordings(sources: readonly Session[], session: Session, seed: number, count: number): string[] {
  const src = sources.find((s) => s.id === session.labels?.synthetic_of);
  if (!src || count <= 0) return [];
  const rand = mulberry32(mixSeed(seed ^ 0x27d4eb2f, Number(session.id.split('-').at(-1)) || 0));
  const out: string[] = [];
  const first = src.labels?.first_user_message;
  if (typeof first === 'string' && first.trim()) out.push(digitPerturber(rand)(first));
  while (out.length < count) out.push(`${digitPerturber(rand)(src.goal)} ${personaDetail(rand)}`);
  return out.slice(0, count);
}

/**
 * Realistic recall queries: the goal of a random real session or, when the trace has one, the first user
 * message the agent saw (tau's `meta.first_user_message`; read here by the benchmark, never by the engine),
 * with its identifiers perturbed.
 */
export function syntheticGoals(
  count: number,
  seed: number,
  sourceFiles: readonly string[] = defaultSourceFiles(),
): string[] {
  const sources = loadSourceSessions(sourceFiles);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const rand = mulberry32(mixSeed(seed ^ 0x5bd1e995, i));
    const src = sources[Math.floor(rand() * sources.length)];
    const first = src.labels?.first_user_message;
    const text = typeof first === 'string' && first.trim() && rand() < 0.5 ? first : src.goal;
    out.push(digitPerturber(rand)(text));
  }
  return out;
}

// ── perturbation ────────────────────────────────────────────────────────────

/** A per-session mapping of digit runs: the same run always maps to the same replacement. */
function digitPerturber(rand: () => number): (text: string) => string {
  const mapping = new Map<string, string>();
  const replace = (run: string): string => {
    if (/^(?:19|20)\d\d$/.test(run)) return run; // years stay years, so dates stay dates
    let out = mapping.get(run);
    if (out === undefined) {
      out = '';
      for (let i = 0; i < run.length; i++) {
        const nonZero = i === 0 && run[0] !== '0';
        out += String(nonZero ? 1 + Math.floor(rand() * 9) : Math.floor(rand() * 10));
      }
      mapping.set(run, out);
    }
    return out;
  };
  return (text) => (text && /\d{3}/.test(text) ? text.replace(/\d{3,}/g, replace) : text);
}

function perturbValue(value: unknown, perturb: (s: string) => string): unknown {
  if (typeof value === 'string') return perturb(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) < 100) return value;
    const n = Number(perturb(String(value)));
    return Number.isFinite(n) ? n : value;
  }
  if (Array.isArray(value)) return value.map((v) => perturbValue(v, perturb));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = perturbValue(v, perturb);
    return out;
  }
  return value;
}

const CITIES = [
  'Denver',
  'Portland',
  'Boston',
  'Austin',
  'Chicago',
  'Phoenix',
  'Atlanta',
  'Miami',
  'Seattle',
  'Detroit',
  'Nashville',
  'Tucson',
  'Omaha',
  'Raleigh',
  'Baltimore',
  'Cleveland',
  'Honolulu',
  'Anchorage',
  'Boise',
  'Madison',
];
const JOBS = [
  'nurse',
  'teacher',
  'plumber',
  'software engineer',
  'accountant',
  'chef',
  'pilot',
  'student',
  'retired firefighter',
  'graphic designer',
  'pharmacist',
  'farmer',
  'lawyer',
  'electrician',
  'librarian',
  'paramedic',
];
const REASONS = [
  'you have a meeting soon',
  'your phone battery is low',
  'you are boarding a train',
  'your child is waiting',
  'you are on a lunch break',
  'the store closes soon',
  'you are driving later',
  'you have guests coming over',
];
const MOODS = [
  'polite but impatient',
  'cheerful and chatty',
  'a bit confused',
  'calm and precise',
  'frustrated after a long day',
  'friendly and relaxed',
  'terse',
  'anxious about money',
];
const RELATIONS = [
  'sister',
  'brother',
  'daughter',
  'son',
  'neighbour',
  'colleague',
  'husband',
  'wife',
  'friend',
  'grandmother',
];
const TOPICS = [
  'gardening',
  'basketball',
  'jazz',
  'hiking',
  'chess',
  'baking',
  'photography',
  'cycling',
  'knitting',
  'astronomy',
  'fishing',
  'painting',
];

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)];

/** One or two sentences about the simulated user, from a few thousand combinations. */
function personaDetail(rand: () => number): string {
  const templates: (() => string)[] = [
    () => `You are calling from ${pick(rand, CITIES)} and you work as a ${pick(rand, JOBS)}.`,
    () => `You are ${pick(rand, MOODS)} because ${pick(rand, REASONS)}.`,
    () => `Your ${pick(rand, RELATIONS)} usually handles this for you, but not today.`,
    () => `You mention that you love ${pick(rand, TOPICS)} if the agent makes small talk.`,
    () => `You are ${pick(rand, MOODS)}; you live in ${pick(rand, CITIES)}.`,
  ];
  const first = pick(rand, templates)();
  return rand() < 0.3 ? `${first} ${pick(rand, templates)()}` : first;
}

// ── seeded PRNG ─────────────────────────────────────────────────────────────

/** Independent stream per (seed, index): a murmur3-style finaliser of both. */
function mixSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export { mulberry32 };
