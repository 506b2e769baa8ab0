/**
 * A person's edit of a learned skill's SKILL.md (`skills edit`): the text read back into the skill's fields. The
 * name stays the skill's (a rename is `skills rename`), the description and body are the person's (secrets and
 * personal data redacted, as anything stored in a skill is), and the procedure follows the steps they wrote where
 * the steps say it as the memory writes them ("Call `tool` ..."). The frontmatter's metadata is the memory's
 * (version, sources, who wrote it): it is written again, whatever the text says. Pure.
 */
import { branchesOf } from './branches.js';
import { markersIn } from './redact.js';
import { parseSkillMd, validateSkillMd } from './skill-md/index.js';
import { normalizeNewlines } from './skill-md/frontmatter.js';
import { stepCountOf, withStepCount } from './skill-naming.js';
import { validateDescription } from './skill-md/validate.js';
import type { Skill } from './types.js';

/** A numbered step line: "3. ..." (or "3) ..."). */
const STEP_ITEM = /^\s{0,3}\d{1,3}[.)]\s+(.*)$/;
/**
 * The tool a step calls, as the renderer writes it: "Call `x`", "... call `x`" after a lead, "Run ... with `x`" (a
 * command step, "run" after a lead).
 */
const STEP_TOOL = /\b[Cc]all `([^`\s]+)`|\b[Rr]un .*? with `([^`\s]+)`/;
/** A heading line. */
const HEADING = /^#{1,6}\s/;

/**
 * The tools a body's steps call, in order: the `## Steps` section's numbered items (or, in a body without one, the
 * numbered items before its first `##` section), each by the first tool it names as the memory writes steps. `main`
 * leaves out the steps taken "only when" something holds, as a learned procedure's sequence does (all steps are
 * main when every one is conditional). Null when no step names a tool that way.
 */
export function stepToolsOf(body: string): { main: string[]; all: string[] } | null {
  const steps = toolSteps(body);
  if (steps.length === 0) return null;
  const required = steps.filter((s) => !s.conditional);
  return {
    main: (required.length ? required : steps).map((s) => s.tool),
    all: steps.map((s) => s.tool),
  };
}

/** The numbered items of a body's steps (see stepToolsOf) that name a tool: the tool, and the item's text. */
function toolSteps(body: string): { tool: string; conditional: boolean; text: string }[] {
  const lines = normalizeNewlines(body).split('\n');
  const at = lines.findIndex((l) => /^##\s+Steps\s*$/i.test(l.trim()));
  let section: string[];
  if (at >= 0) {
    const end = lines.findIndex((l, i) => i > at && HEADING.test(l));
    section = lines.slice(at + 1, end < 0 ? undefined : end);
  } else {
    const end = lines.findIndex((l) => /^##\s/.test(l));
    section = lines.slice(0, end < 0 ? undefined : end);
  }
  return section.flatMap((line) => {
    const item = STEP_ITEM.exec(line);
    const tool = item ? STEP_TOOL.exec(item[1]!) : null;
    return tool
      ? [{ tool: (tool[1] ?? tool[2])!, conditional: item![1]!.includes('(only when'), text: item![1]! }]
      : [];
  });
}

/**
 * What a step line says of its procedure, in order: the code it names (tools, arguments, fields, commands), the
 * values it quotes, and the words that say where an argument comes from, whether it repeats and when it is taken.
 * The rest of its prose is wording.
 */
const PROCEDURE_WORDS =
  /(`+)([\s\S]*?[^`])\1(?!`)|"(?:[^"\\]|\\.)*"|\b(?:from the user|from the result of|as the case needs|given to|for (?:each|every)|only when|when|shows|printed|part of its text|copied exactly|with more arguments)\b/gi;

/**
 * A body's procedure as it reads (sameProcedureText): each step that names a tool, with what it says of its
 * arguments, repetition and condition (PROCEDURE_WORDS), in order; then its branches (the `## Branches` lines).
 */
function procedureOf(body: string): string {
  const steps = toolSteps(body).map((s) => [
    s.tool,
    s.conditional,
    [...s.text.matchAll(PROCEDURE_WORDS)].map((m) =>
      m[1] ? m[2]!.trim() : m[0].toLowerCase().replace('for every', 'for each'),
    ),
  ]);
  return JSON.stringify({ steps, branches: branchesOf(body) });
}

/**
 * Whether two bodies state the same procedure: the same steps naming the same tools in the same order, each with
 * the same argument sources, repetition and condition, and the same branches; what differs is wording (a step's
 * prose, the notes, the edge cases, the title). Pure.
 */
export function sameProcedureText(a: string, b: string): boolean {
  return procedureOf(a) === procedureOf(b);
}

/** The skill's fields as a person's SKILL.md says them. */
export interface EditedFields {
  description: string;
  body: string;
  toolSequence: string[];
  toolsRequired: string[];
  /** What the person should know: a procedure the steps did not say, a tool no version of the skill called. */
  warnings: string[];
  /** The kinds of secret or personal data redacted from the text (`api_key`, `email`), once each. */
  redacted: string[];
}

export type EditReading =
  | { ok: true; changed: true; fields: EditedFields }
  /** `empty`: no text at all; `unchanged`: the description and body it had. Nothing is written. */
  | { ok: true; changed: false; why: 'empty' | 'unchanged' }
  | { ok: false; errors: string[] };

/**
 * Reads a person's SKILL.md for `skill`: validated as any SKILL.md (frontmatter, name rules, description limits),
 * the name the skill's own, secrets and personal data redacted (`redact`). Its procedure: the main path its steps
 * name (stepToolsOf), else the one it had, with a warning; its tools: every tool its steps and branches name.
 *
 * A description the text leaves as it was, and that the learner wrote (`learned`: the skill's description is the
 * learner's wording, not a person's), says the edited procedure's number of steps where its learned clause said the
 * old one ("(4 steps that worked for agents ...)" becomes "(6 steps ...)"), with a warning. A description a person
 * wrote, in this text or an earlier edit, is never rewritten.
 */
export function readEdit(
  text: string,
  skill: Pick<Skill, 'name' | 'description' | 'body' | 'toolSequence' | 'toolsRequired'>,
  redact: (text: string) => string,
  opts: { learned?: boolean } = {},
): EditReading {
  if (text.trim() === '') return { ok: true, changed: false, why: 'empty' };
  const checked = validateSkillMd(text, { dirName: skill.name });
  const parsed = parseSkillMd(text);
  const renamed = parsed.name !== null && parsed.name !== skill.name && checked.errors.some(isDirError);
  const errors = checked.errors.filter((e) => !isDirError(e));
  if (renamed)
    errors.push(
      `name: the text names "${parsed.name}", but this is ${skill.name}: an edit keeps the skill's name; to give it another, use skills rename ${skill.name} ${parsed.name}`,
    );
  if (errors.length) return { ok: false, errors };
  let description = redact(parsed.description ?? '');
  const body = redact(parsed.body).replace(/\s+$/, '');
  // A redaction marker in the description is still a valid description; one that is not (it cannot be) says so.
  const descriptionErrors = validateDescription(description);
  if (descriptionErrors.length) return { ok: false, errors: descriptionErrors };
  if (description === skill.description && body === skill.body.replace(/\s+$/, ''))
    return { ok: true, changed: false, why: 'unchanged' };
  const warnings: string[] = [];
  // A learned skill's frontmatter is written by the memory: fields it does not write are not kept, and said.
  const dropped = [
    ...(parsed.compatibility !== null ? ['compatibility'] : []),
    ...(parsed.allowedTools !== null ? ['allowed-tools'] : []),
  ];
  if (dropped.length)
    warnings.push(
      `${dropped.join(' and ')}: not kept (a learned skill's frontmatter is the memory's: its name, your description, its metadata)`,
    );
  const steps = stepToolsOf(body);
  const toolSequence = steps ? steps.main : [...skill.toolSequence];
  if (!steps)
    warnings.push(
      `no step names a tool the way the memory writes steps ("1. Call \`tool\` ..." under "## Steps"): the skill keeps the procedure it had (${skill.toolSequence.join(' > ') || 'none'})`,
    );
  // The learner's description, left as it was, counts the steps the procedure has now.
  const said = stepCountOf(description);
  if (
    opts.learned &&
    steps &&
    description === skill.description &&
    toolSequence.length !== skill.toolSequence.length &&
    said !== null &&
    said !== toolSequence.length
  ) {
    const recounted = withStepCount(description, toolSequence.length);
    if (validateDescription(recounted).length === 0) {
      warnings.push(
        `description: its learned wording said ${said} step${said === 1 ? '' : 's'}; it now says ${toolSequence.length}, as the edited procedure has (write your own description to keep other words)`,
      );
      description = recounted;
    }
  }
  const branchTools = branchesOf(body).flatMap((b) => b.toolSequence);
  const toolsRequired = steps ? [...new Set([...steps.all, ...branchTools])] : [...skill.toolsRequired];
  const known = new Set([...skill.toolsRequired, ...skill.toolSequence]);
  const unknown = [...new Set([...(steps?.all ?? []), ...branchTools])].filter((t) => !known.has(t));
  if (unknown.length)
    warnings.push(
      `${unknown.map((t) => `\`${t}\``).join(', ')}: no version of ${skill.name} called ${unknown.length === 1 ? 'this tool' : 'these tools'}; recall and trials take the steps as written`,
    );
  return {
    ok: true,
    changed: true,
    fields: { description, body, toolSequence, toolsRequired, warnings, redacted: newMarkers(text, description, body) },
  };
}

/** The validator's "name must equal the directory name" error: an edit says it in its own words. */
const isDirError = (e: string) => e.startsWith('name: must equal the directory name');

/** The kinds of redaction marker the edited fields hold beyond those the person's text held already. */
function newMarkers(text: string, description: string, body: string): string[] {
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const before = count(markersIn(text));
  const after = count(markersIn(`${description}\n${body}`));
  return [...after]
    .filter(([m, n]) => n > (before.get(m) ?? 0))
    .map(([m]) => m.slice('[REDACTED:'.length, -1))
    .sort();
}
