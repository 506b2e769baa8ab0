import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareCapture } from '../src/capture/ingest.js';
import { HEURISTIC_DISTILLER_ID } from '../src/distillers/heuristic-distiller.js';
import { openMemory } from '../src/index.js';
import { codingSessions, scriptedSession, TEST_FIXES, UPGRADES } from './support/coding-tasks.js';
import { SAMPLE, TAU_DEV, TAU_DIR, tempDbPath } from './support/tau.js';
import { RuleJudge } from '../src/capture/judge.js';
import { week } from './fixtures/claude-code-week.mjs';

/**
 * A returning user sees what a release learns only if the heuristic distiller's version goes up with its output
 * (the first pass after an upgrade distils again what an earlier version wrote; learned-by.ts). This test learns
 * from the bundled traces, as `skillsmith learn` reads them, and fingerprints every skill it writes (name,
 * description, SKILL.md body, tool sequence and branches). A change to what is learned changes the fingerprint:
 * then raise HEURISTIC_DISTILLER_ID in src/distillers/heuristic-distiller.ts and add the new version's
 * fingerprint below. Never edit a released version's entry: that is the change the upgrade would miss.
 */
const FINGERPRINTS: Record<string, string> = {
  'heuristic@3': 'def1a06925af1828',
  'heuristic@4': '3936a17da4ce5dd2',
  'heuristic@5': 'f8354f3c8dcb0572',
  'heuristic@6': 'bb11869acda06bb0',
  'heuristic@7': '049937277d8bb6fa',
  'heuristic@8': 'd2d0afec15cb2a6d',
  'heuristic@9': '7d7008483b43af89',
  'heuristic@10': '2f757415b793788d',
  'heuristic@11': '6dc13b806bfa81a2',
  'heuristic@12': '64c2622990feb4b1',
  // From here on, also a coding agent's tasks, learned in a memory of their own (test/support/coding-tasks.ts).
  'heuristic@13': '08efa3deaef4eff7',
  // From here on, also the compiled upgrades, whose runs each failed `npm outdated` first.
  'heuristic@14': 'eb6e399368e94ab8',
  // From here on, also test fixes whose edits replace a line the read printed (TEST_FIXES).
  'heuristic@15': '0b3613f5e94bdc73',
  // From here on, a skill another group reinforced states every session that supports it.
  'heuristic@16': '9aeb8bc0e4f49bf3',
  // From here on, also WorkBench learned in a memory of its own. A failure-correlated warning names no lookup.
  'heuristic@17': 'ccfd11f780b7c294',
  // From here on, also the test fixes in a memory of their own: the edit takes the file the read was given; a
  // repeated step says what it goes through (each order, line, file).
  'heuristic@18': '274b655be2a19d24',
  // From here on, sessions a library, REST or MCP client records store a command that answered by its exit status
  // as succeeded, as a log file's are: the compiled upgrades' `npm outdated` is their first step, not a warning.
  'heuristic@19': '87cee9b31fb3d48a',
  // From here on, also the sessions in ten languages, in a memory of their own: a name and a description take the
  // requests' words whole (données, not donn), never their function words (run-eine-und), and a procedure whose
  // requests give no word a name can use is named by the program it runs (run-pg-dump, not run).
  'heuristic@20': 'a2deda8d1584ae4c',
  // From here on, also a week of Claude Code transcripts (test/fixtures/claude-code-week.mjs), judged by the rule, in
  // a memory of its own: `gh run list` and `gh run view` are two steps, not one `gh run` step repeated; a rebase is
  // named by its verb (rebase-origin, not check-origin), a look at a log and a file by what the requests name
  // (check-ci, not read: two capitals are a word). A session that went through a pair of steps for each of many files
  // (Read, Edit; touch, echo; search, delete) follows the procedure that does the pair once: BFCL's write-file-create
  // has 12 followers (was 11), WorkBench's delete-emails 33 (was 31, the 2 failures), the tau skills are as before.
  'heuristic@21': '399d5eed9c02c3cc',
  // A skill whose successful sessions had a call fail, each step in one session at most, no longer says "No failure
  // was observed": it says no step failed in more than one of them.
  'heuristic@22': '1e4b80945d274b3b',
  // A step that runs a command is said in the description by the command (runs git diff, npm run lint), no longer by
  // words its arguments gave it (`git diff --stat package.json` was "looks up json").
  'heuristic@23': '0a1f6facfadf53d0',
  // A hand-off to a person that most successful sessions ended with after the fix is the procedure's last step where
  // handing on is how the task gets done (some runs only handed on; the goal stays the fix): tau's fix-phone-service
  // resumes the line, then transfers when service is still out. In the
  // same version an argument's source is never a result that repeats what its call was given, and of places that
  // held the value alike the field named as the argument wins (the bundled results, cut at 500 characters, show no
  // case of either).
  'heuristic@24': 'e1c412af60ba3e38',
  // From here on, a task whose agents held different tools (tau2 telecom's device tools) is learned as the path of
  // those that needed none of them, with a branch on the tools for the others (domain/toolsets.ts).
  'heuristic@25': '5ba8b07d5d66ed55',
};

const MULTILINGUAL = new URL('./fixtures/multilingual/sessions.jsonl', import.meta.url).pathname;

const FILES = [
  SAMPLE,
  TAU_DEV,
  `${TAU_DIR}bfcl-multi-turn-base.jsonl`,
  `${TAU_DIR}bfcl-multi-turn-turns.jsonl`,
  `${TAU_DIR}workbench.jsonl`,
];
const dbs = {
  all: tempDbPath('skillsmith-distiller-version-'),
  coding: tempDbPath('skillsmith-distiller-version-coding-'),
  workbench: tempDbPath('skillsmith-distiller-version-workbench-'),
  fixes: tempDbPath('skillsmith-distiller-version-fixes-'),
  multilingual: tempDbPath('skillsmith-distiller-version-multilingual-'),
  week: tempDbPath('skillsmith-distiller-version-week-'),
};
afterAll(() => {
  for (const path of Object.values(dbs)) rmSync(dirname(path), { recursive: true, force: true });
});

type Memory = Awaited<ReturnType<typeof openMemory>>;

/** What a fresh memory learned from what `fill` stores in it, sorted by name. */
async function learnedIn(db: string, fill: (memory: Memory) => Promise<void>) {
  const memory = await openMemory({ db, logLevel: 'silent' });
  try {
    await fill(memory);
    await memory.synthesize();
    return (await memory.skills.list()).sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    await memory.close();
  }
}

/** Stores the files' sessions as `skillsmith ingest` reads them (`judge`: the outcome judge, else none). */
async function ingestFiles(
  memory: Memory,
  files: readonly string[],
  read = (file: string) => readFileSync(file, 'utf8'),
  judge: RuleJudge | null = null,
): Promise<void> {
  const { capture } = memory.config;
  for (const file of files) {
    const { parsed, judgement } = await prepareCapture(read(file), {
      file,
      namespace: memory.namespace,
      now: '2026-01-01T00:00:00.000Z',
      resultChars: capture.resultChars,
      maxRecordBytes: capture.maxRecordBytes,
      maxCallsPerSession: capture.maxCallsPerSession,
      privacy: capture.privacy,
      judge,
    });
    expect(judgement?.judged ?? 0).toBe(judge ? parsed.sessions.length : 0);
    await memory.ingest(parsed.sessions);
  }
}

async function learnedFingerprint(): Promise<{ digest: string; skills: number }> {
  const skills = [
    ...(await learnedIn(dbs.all, (memory) => ingestFiles(memory, FILES))),
    // A coding agent's namespace, where every task calls the same tools, learns in a memory of its own.
    ...(await learnedIn(dbs.coding, async (coding) => {
      await coding.ingest([...codingSessions(), ...UPGRADES.map(scriptedSession), ...TEST_FIXES.map(scriptedSession)]);
      // The upgrades are worded too far apart to group: learned as a user would, from their look-alike group.
      await coding.skills.compile({ sessions: UPGRADES.map((u) => u.id), commit: true });
    })),
    // From heuristic@17 on, WorkBench too, as a user of those tools alone would learn it.
    ...(await learnedIn(dbs.workbench, (memory) => ingestFiles(memory, [`${TAU_DIR}workbench.jsonl`]))),
    // From heuristic@18 on, the test fixes alone: in the coding memory they group with runs that name their files.
    ...(await learnedIn(dbs.fixes, (memory) => memory.ingest(TEST_FIXES.map(scriptedSession)).then(() => {}))),
    // From heuristic@20 on, the sessions in ten languages too (test/fixtures/multilingual), in a memory of their own.
    ...(await learnedIn(dbs.multilingual, (memory) => ingestFiles(memory, [MULTILINGUAL]))),
    // From heuristic@21 on, a week of Claude Code transcripts, judged by the rule as `skillsmith ingest` judges them.
    ...(await learnedIn(dbs.week, (memory) => {
      const { files } = week();
      const text = (file: string) => `${files.get(file)!.join('\n')}\n`;
      return ingestFiles(memory, [...files.keys()], text, new RuleJudge());
    })),
  ];
  const hash = createHash('sha256');
  for (const s of skills) {
    const body = s.skillMd.slice(s.skillMd.indexOf('\n---', 3) + 4);
    hash.update(JSON.stringify([s.name, s.description, body, s.toolSequence, s.status]));
  }
  return { digest: hash.digest('hex').slice(0, 16), skills: skills.length };
}

describe('the heuristic distiller version', () => {
  it('goes up whenever what it learns from the bundled traces changes', async () => {
    const { digest, skills } = await learnedFingerprint();
    expect(skills).toBeGreaterThan(10);
    expect(
      FINGERPRINTS[HEURISTIC_DISTILLER_ID],
      `What the heuristic distiller writes changed (fingerprint ${digest}). Raise HEURISTIC_DISTILLER_ID and record ` +
        'the fingerprint under the new version in this file, so that returning users get the new skills.',
    ).toBe(digest);
    // Two versions never share a fingerprint: a version that changed nothing was not needed.
    expect(new Set(Object.values(FINGERPRINTS)).size).toBe(Object.keys(FINGERPRINTS).length);
  });
});
