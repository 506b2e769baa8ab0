// Agents whose users do not write English, on the embedded defaults: sessions in ten languages
// (test/fixtures/multilingual, written for this test), learned one language at a time and all together, as
// `skillsmith learn` and `skills export` would, then asked with further wordings and with unrelated requests in
// the same languages. What README "Goals in other languages" promises: a meaningful ASCII name, exports that
// validate, recall of a task by another wording in its language, and nothing recalled for the rest, nor by a
// memory of English skills, which says why.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory, type Memory } from '../src/index.js';
import { validateSkillMd, validateSkillName } from '../src/domain/skill-md/validate.js';
import { runCli, startCli } from './support/surfaces.js';
import { SAMPLE } from './support/tau.js';

const DIR = join(import.meta.dirname, 'fixtures', 'multilingual');
interface Line {
  session_id: string;
  goal: string;
  meta: { lang: string; family: string };
}
const LINES: Line[] = readFileSync(join(DIR, 'sessions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Line);
const REQUESTS = JSON.parse(readFileSync(join(DIR, 'requests.json'), 'utf8')) as {
  further: { lang: string; family: string; text: string }[];
  unrelated: { lang: string; text: string }[];
};
const LANGS = [...new Set(LINES.map((l) => l.meta.lang))];
const familyOf = new Map(LINES.map((l) => [l.session_id, l.meta.family]));

const tmp = mkdtempSync(join(tmpdir(), 'skillsmith-multilingual-'));
const opened: Memory[] = [];
afterAll(async () => {
  for (const m of opened) await m.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A fresh memory that learned the sessions of `langs` from a JSONL file, as `skillsmith learn` reads one. */
async function learned(langs: readonly string[], name: string) {
  const file = join(tmp, `${name}.jsonl`);
  const lines = readFileSync(join(DIR, 'sessions.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(file, `${lines.filter((l) => langs.includes((JSON.parse(l) as Line).meta.lang)).join('\n')}\n`);
  const memory = await openMemory({
    db: join(tmp, `${name}.db`),
    config: { synthesis: { cooldownMs: 0 } },
    logLevel: 'silent',
    auditFile: null,
  });
  opened.push(memory);
  await memory.ingestFile(file);
  await memory.synthesize();
  const skills = await memory.skills.list();
  // The task a skill was learned from: the family of its sessions (they must all agree).
  const task = new Map<string, string>();
  for (const s of skills) {
    const families = new Set(s.sourceSessions.map((id) => familyOf.get(id)));
    expect(families.size, `${s.name} learned from one task`).toBe(1);
    task.set(s.name, [...families][0]!);
  }
  return { memory, skills, task };
}

/** The further wordings whose top skill is not the one learned from their task, and what it was. */
async function misses(memory: Memory, task: Map<string, string>, langs: readonly string[]) {
  const out: string[] = [];
  for (const r of REQUESTS.further.filter((x) => langs.includes(x.lang))) {
    const [top] = await memory.recall(r.text, { record: false });
    if (!top || task.get(top.name) !== r.family) out.push(`${r.text} -> ${top ? top.name : 'nothing'}`);
  }
  return out;
}

/** The unrelated requests that recalled something, and what. */
async function falseRecalls(memory: Memory, langs: readonly string[]) {
  const out: string[] = [];
  for (const r of REQUESTS.unrelated.filter((x) => langs.includes(x.lang))) {
    const hits = await memory.recall(r.text, { record: false });
    if (hits.length) out.push(`${r.text} -> ${hits[0]!.name} ${hits[0]!.similarity}`);
  }
  return out;
}

/** What the name of the procedure run through `run_shell` is in each language: goal words, else its program. */
const SHELL_NAMES: Record<string, string> = {
  de: 'run-sicherung-datenbank',
  fr: 'run-base-donnees',
  zh: 'run-pg-dump',
  ru: 'run-pg-dump',
};

describe('goals in ten languages, one memory per language', () => {
  for (const lang of LANGS) {
    it(`${lang}: a skill per task with an ASCII name that says it, exports that validate, a further wording recalls its skill, unrelated requests recall nothing`, async () => {
      const { memory, skills, task } = await learned([lang], lang);
      const tasks = new Set(LINES.filter((l) => l.meta.lang === lang).map((l) => l.meta.family));
      expect(new Set(task.values())).toEqual(tasks);
      expect(skills).toHaveLength(tasks.size);
      for (const s of skills) {
        expect(validateSkillName(s.name), s.name).toEqual([]);
        // A verb and its object, never a bare verb or a numbered fallback.
        expect(s.name, s.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)+$/);
        expect(s.name, s.name).not.toMatch(/^skill-\d+$|^procedure/);
        // No function word of the request's language names a skill ("run-eine-und").
        expect(s.name.split('-'), s.name).not.toEqual(
          expect.arrayContaining([expect.stringMatching(/^(?:eine|und|der|les|une|pour|una|para|ich|zur|donn)$/)]),
        );
      }
      const shell = [...task].find(([, family]) => family === 'back-up-database')?.[0];
      if (SHELL_NAMES[lang]) expect(shell).toBe(SHELL_NAMES[lang]);
      // Descriptions quote the goals' words whole, accents kept.
      if (lang === 'fr') expect(skills.find((s) => s.name === shell)!.description).toContain('Base Données');
      if (lang === 'de')
        expect(skills.find((s) => s.name === 'send-password-reset')!.description).not.toMatch(/\bzur\b/);

      const out = join(tmp, `export-${lang}`);
      const exported = await memory.skills.export(out);
      expect(exported.written.map((w) => w.name).sort()).toEqual(skills.map((s) => s.name).sort());
      for (const name of readdirSync(out)) {
        const check = validateSkillMd(readFileSync(join(out, name, 'SKILL.md'), 'utf8'));
        expect(check.errors, name).toEqual([]);
      }

      expect(await misses(memory, task, [lang])).toEqual([]);
      expect(await falseRecalls(memory, [lang])).toEqual([]);
    });
  }
});

describe('goals in ten languages, one memory for all of them', () => {
  it('learns one skill per procedure from every language, recalls no unrelated request, and no further wording recalls another task', async () => {
    const { memory, skills, task } = await learned(LANGS, 'all');
    expect(new Set(task.values()).size).toBe(6);
    expect(skills).toHaveLength(6);
    expect(await falseRecalls(memory, LANGS)).toEqual([]);
    const missed = await misses(memory, task, LANGS);
    // Each skill keeps 8 of its wordings for recall (MAX_EXEMPLARS), of up to 15 in five languages: a wording
    // whose language kept few may fall short; none may recall another task's skill.
    expect(missed.filter((m) => !m.endsWith('-> nothing'))).toEqual([]);
    expect(missed.length, missed.join('\n')).toBeLessThanOrEqual(2);
  });
});

describe('a memory of English skills asked in other languages', () => {
  it('recalls nothing for any of the requests, and says the goal was compared by its words alone', async () => {
    const memory = await openMemory({ db: join(tmp, 'english.db'), logLevel: 'silent', auditFile: null });
    opened.push(memory);
    await memory.ingestFile(SAMPLE);
    await memory.synthesize();
    const recalled: string[] = [];
    for (const text of [...REQUESTS.further, ...REQUESTS.unrelated].map((r) => r.text)) {
      const hits = await memory.recall(text, { record: false });
      if (hits.length) recalled.push(`${text} -> ${hits[0]!.name}`);
    }
    expect(recalled).toEqual([]);
    // A Chinese request: no word of it is one GloVe knows the meaning of, so it is held to the words-only threshold.
    const nearest = await memory.nearest('请帮我取消订单#W7310');
    expect(nearest).toMatchObject({
      threshold: 0.27,
      wordsOnly: { embedder: expect.stringMatching(/^glove-sif-lex@/) },
    });
    // An English request is held to the recall threshold and compared by meaning.
    const english = await memory.nearest('Please write a haiku about autumn leaves');
    expect(english?.threshold).toBe(0.4);
    expect(english?.wordsOnly).toBeUndefined();
  });
});

describe('the CLI and the REST API, in other languages', () => {
  it('learn, recall a Chinese wording, say why an unrelated Chinese request recalls nothing, and serve the recall over REST', async () => {
    const db = join(tmp, 'cli.db');
    const learnRun = runCli(['learn', join(DIR, 'sessions.jsonl'), '--db', db], tmp);
    expect(learnRun.code, learnRun.stderr).toBe(0);
    expect(learnRun.stdout).toMatch(/run-pg-dump/);

    const hit = runCli(['recall', '帮我给数据库做个备份，放到S3上。', '--db', db, '--json'], tmp);
    expect(hit.code, hit.stderr).toBe(0);
    expect((JSON.parse(hit.stdout) as { name: string }[])[0]?.name).toBe('run-pg-dump');

    const none = runCli(['recall', '给我讲一个关于熊猫的笑话。', '--db', db], tmp);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(
      /^No skill matches this goal\. The nearest, [a-z-]+, scores 0\.\d+, under the recall threshold 0\.27/,
    );
    expect(none.stdout).toMatch(/compared by its words alone/);
    expect(none.stdout).toMatch(/configure a multilingual embedder \(README "Goals in other languages"\)/);

    const server = await startCli(['serve', '--port', '0', '--db', db]);
    try {
      const res = await fetch(`${server.url}/api/recall`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ goal: 'कल की मीटिंग के लिए रूम बुक करो और सबको बुलाओ।' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { skills: { name: string }[] };
      expect(body.skills[0]?.name).toBe('send-invite');
      const other = await fetch(`${server.url}/api/recall`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ goal: 'ما هي عاصمة كندا؟' }),
      });
      expect(((await other.json()) as { skills: unknown[] }).skills).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('text cut to a length, in any script', () => {
  it('a tool result longer than capture.resultChars is stored cut between characters, never half an emoji', async () => {
    const file = join(tmp, 'emoji.jsonl');
    // An odd number of code units before the emoji: the cut at 2,000 falls between the two halves of one.
    const result = `x${'😀'.repeat(1500)}`;
    writeFileSync(
      file,
      `${JSON.stringify({
        session_id: 'emoji-1',
        goal: 'Zeige mir die Ergebnisse 😀',
        success: true,
        steps: [{ tool: 'search_web', args: { q: 'x' }, result, ok: true }],
      })}\n`,
    );
    const memory = await openMemory({ db: join(tmp, 'emoji.db'), logLevel: 'silent', auditFile: null });
    opened.push(memory);
    await memory.ingestFile(file);
    const stored = (await memory.sessions.get('emoji-1'))!.calls[0]!.result!;
    expect(stored).toMatch(/^x😀+… \(truncated\)$/u);
    expect(stored).not.toContain('\uFFFD');
  });
});
