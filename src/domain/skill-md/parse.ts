// Reading a SKILL.md, whatever system wrote it, into one shape. Fail-open and total: any input yields a
// ParsedSkill; text we cannot read as frontmatter + body is a legacy skill whose whole text is the body.

import { isMapping, loadYaml, normalizeNewlines, setOwn, splitFrontmatter, type YamlValue } from './frontmatter.js';
import { toSkillName } from './serialize.js';
import { validateDescription, validateSkillName } from './validate.js';
import { toolNameProblem } from '../tool-name.js';

export type SkillFormat = 'agentskills' | 'gaia' | 'spector' | 'memos' | 'intermediate' | 'legacy';

export interface SkillParents {
  episodic: string[];
  semantic: string[];
  procedural: string[];
}

export interface ParsedSkill {
  /** The shape the text was recognised as (see parseSkillMd). */
  format: SkillFormat;
  /** A valid skill name (normalised through toSkillName when the text's was not), or null when absent. */
  name: string | null;
  /** As written (trimmed); may still break the description rules, see `warnings`. */
  description: string | null;
  license: string | null;
  compatibility: string | null;
  allowedTools: string | null;
  /**
   * The text's metadata, flattened to strings: nested maps become dotted keys (`gaia.tools_required`),
   * lists of scalars become space-separated values. Fields of foreign shapes with no home of their own are
   * added under the shape's prefix (`spector.confidence`, `memos.eta`, `memos.status`, `memos.parameters`).
   */
  metadata: Record<string, string>;
  toolsRequired: string[];
  version: string | null;
  kind: 'playbook' | 'heuristic' | null;
  parents: SkillParents;
  /** Markdown after the frontmatter (LF line endings, no leading blank lines); the whole text when legacy. */
  body: string;
  /** What was normalised, ignored or doubtful, for people; never fatal. */
  warnings: string[];
}

/** Result of reading the LLM's intermediate output (name, when_to_use, tools_required, body) or `SKIP`. */
export type IntermediateResult =
  | { kind: 'skip' }
  | { kind: 'draft'; name: string; whenToUse: string; toolsRequired: string[]; body: string }
  | { kind: 'error'; reason: string };

const PARENT_KINDS = ['episodic', 'semantic', 'procedural'] as const;
/** Metadata keys (after flattening) that hold the required tools, in every shape we read. */
export const TOOLS_METADATA_KEYS = [
  'tools-required',
  'tools_required',
  'toolsRequired',
  'gaia.tools_required',
  'gaia.tools-required',
  'gaia.toolsRequired',
];
/** Metadata keys (after flattening) that hold the version. */
export const VERSION_METADATA_KEYS = ['version', 'gaia.version'];
/** Metadata keys (after flattening) that hold the kind. */
export const KIND_METADATA_KEYS = ['kind', 'gaia.kind'];
/** Metadata keys (after flattening) that hold parent ids of one kind. */
export function parentMetadataKeys(kind: keyof SkillParents): string[] {
  return [`parents-${kind}`, `parents.${kind}`, `parents_${kind}`];
}

const MEMOS_KEYS = [
  'invocationGuide',
  'invocation_guide',
  'procedure',
  'procedureJson',
  'procedure_json',
  'steps',
  'eta',
  'trialsAttempted',
  'trialsPassed',
  'sourcePolicyIds',
  'summary',
];
const KNOWN_TOP_LEVEL = new Set([
  'name',
  'description',
  'license',
  'compatibility',
  'allowed-tools',
  'allowed_tools',
  'allowedTools',
  'metadata',
  'version',
  'schema',
  'kind',
  'confidence',
  'tools',
  'tools_required',
  'tools-required',
  'toolsRequired',
  'when_to_use',
  'whenToUse',
  'parents',
  'status',
  'parameters',
  ...MEMOS_KEYS,
]);

/**
 * Parses any text as a skill. Never throws.
 *
 * - No `---` fence first (after a BOM and leading whitespace), an unclosed fence, YAML that does not parse,
 *   or YAML that is not a mapping: `format: 'legacy'`, the whole original text is the body.
 * - `schema: spector.skill.v1`: Spector (kind, confidence, tools, parents).
 * - top-level `when_to_use`: the GAIA LLM intermediate form (-> description; `tools_required` list).
 * - top-level `version` or `metadata.gaia`: GAIA (#691); `metadata.gaia.tools_required` is flattened.
 * - MemOS keys (`invocationGuide`, `procedure`, `steps`, `eta`, ...): MemOS export; steps become the body
 *   when the body is empty.
 * - otherwise agentskills.io (ours): `metadata.tools-required` (space-separated), `metadata.version`,
 *   `metadata.kind`, `metadata.parents-<kind>`.
 */
export function parseSkillMd(text: string): ParsedSkill {
  return analyse(text).parsed;
}

/**
 * Reads the LLM's output: the literal `SKIP` (trimmed, case-sensitive) means no skill; otherwise the
 * intermediate form `---\nname: ...\nwhen_to_use: ...\ntools_required: [...]\n---\n<body>`. One surrounding
 * markdown code fence is tolerated. `description` is accepted in place of `when_to_use`; a missing
 * `tools_required` is an empty list. Anything else is `{kind: 'error', reason}`. Never throws.
 */
export function parseIntermediate(text: string): IntermediateResult {
  if (typeof text !== 'string') return { kind: 'error', reason: 'output is not text' };
  const trimmed = text.trim();
  if (trimmed === 'SKIP') return { kind: 'skip' };
  if (trimmed === '') return { kind: 'error', reason: 'output is empty' };
  const unwrapped = unwrapCodeFence(trimmed);
  if (unwrapped === 'SKIP') return { kind: 'skip' };
  const { parsed, legacyReason } = analyse(unwrapped);
  if (legacyReason !== null) return { kind: 'error', reason: `not the intermediate form: ${legacyReason}` };
  if (parsed.name === null) return { kind: 'error', reason: 'name: missing' };
  if (parsed.description === null) return { kind: 'error', reason: 'when_to_use: missing' };
  if (parsed.body.trim() === '') return { kind: 'error', reason: 'body: empty' };
  return {
    kind: 'draft',
    name: parsed.name,
    whenToUse: parsed.description,
    toolsRequired: parsed.toolsRequired,
    body: parsed.body,
  };
}

function unwrapCodeFence(text: string): string {
  const m = /^```[\w-]*[ \t]*\n([\s\S]*?)\n```$/.exec(normalizeNewlines(text));
  return m ? (m[1] ?? '').trim() : text;
}

interface Analysis {
  parsed: ParsedSkill;
  /** Why the text was read as legacy, or null when it was not. */
  legacyReason: string | null;
}

function analyse(text: string): Analysis {
  const original = typeof text === 'string' ? text : text === null || text === undefined ? '' : String(text);
  try {
    const split = splitFrontmatter(original);
    if (!split.ok) return legacy(original, split.reason);
    const loaded = loadYaml(split.yaml, 'source');
    if (!loaded.ok) return legacy(original, `frontmatter YAML does not parse: ${loaded.reason}`);
    if (!isMapping(loaded.value)) return legacy(original, 'frontmatter is not a YAML mapping');
    const warnings = loaded.warnings.map((w) => `frontmatter: ${w}`);
    return { parsed: fromMapping(loaded.value, split.body, warnings), legacyReason: null };
  } catch (err) {
    // Defensive: nothing above is expected to throw, but the parser must not.
    return legacy(original, `unexpected parser error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function legacy(original: string, reason: string): Analysis {
  return {
    parsed: {
      format: 'legacy',
      name: null,
      description: null,
      license: null,
      compatibility: null,
      allowedTools: null,
      metadata: {},
      toolsRequired: [],
      version: null,
      kind: null,
      parents: { episodic: [], semantic: [], procedural: [] },
      body: original,
      warnings: [`legacy skill: ${reason}; the whole text is the body`],
    },
    legacyReason: reason,
  };
}

type Mapping = { [key: string]: YamlValue };

function fromMapping(fm: Mapping, body: string, warnings: string[]): ParsedSkill {
  const format = detectFormat(fm);
  const schema = text(own(fm, 'schema'));
  if (schema !== null && format !== 'spector')
    warnings.push(`schema: "${schema}" is not a known schema; read leniently`);
  for (const key of Object.keys(fm)) {
    if (!KNOWN_TOP_LEVEL.has(key)) warnings.push(`${key}: unknown top-level key ignored`);
  }

  const metadata: Record<string, string> = {};
  const rawMetadata = own(fm, 'metadata');
  if (isMapping(rawMetadata)) flattenMetadata(rawMetadata, '', metadata, warnings);
  else if (rawMetadata !== undefined && rawMetadata !== null) warnings.push('metadata: not a mapping; ignored');

  const name = readName(fm, warnings);
  const description = readDescription(fm, format, warnings);
  const allowedTools = readAllowedTools(fm, warnings);

  const tools: string[] = [];
  for (const key of TOOLS_METADATA_KEYS)
    if (Object.hasOwn(metadata, key)) tools.push(...splitList(metadata[key] ?? ''));
  for (const key of ['tools_required', 'tools-required', 'toolsRequired']) tools.push(...toolNames(own(fm, key)));
  if (format === 'spector' || format === 'memos') tools.push(...toolNames(own(fm, 'tools')));
  else if (own(fm, 'tools') !== undefined) warnings.push('tools: read as provided tools, not required tools; ignored');

  const version = firstText(VERSION_METADATA_KEYS.map((k) => metadata[k])) ?? text(own(fm, 'version'));
  const kind = readKind(firstText(KIND_METADATA_KEYS.map((k) => metadata[k])) ?? text(own(fm, 'kind')), warnings);
  const parents = readParents(fm, metadata, warnings);

  let finalBody = body;
  if (format === 'spector' || format === 'memos') liftExtras(fm, format, metadata);
  if (format === 'memos') {
    const steps = memosSteps(fm);
    for (const step of steps) if (step.tool !== null) tools.push(step.tool);
    if (finalBody.trim() === '' && steps.length > 0) finalBody = renderSteps(name, steps);
  }
  if (finalBody.trim() === '') warnings.push('body: is empty');
  const toolsRequired = dedupe(tools).filter((tool) => {
    const wrong = toolNameProblem(tool);
    if (wrong) warnings.push(`tools-required: ${wrong}; left out`);
    return !wrong;
  });

  return {
    format,
    name,
    description,
    license: text(own(fm, 'license')),
    compatibility: text(own(fm, 'compatibility')),
    allowedTools,
    metadata,
    toolsRequired,
    version,
    kind,
    parents,
    body: finalBody,
    warnings,
  };
}

function detectFormat(fm: Mapping): SkillFormat {
  const schema = text(own(fm, 'schema'));
  if (schema !== null && /^spector\.skill(\.|$)/i.test(schema)) return 'spector';
  if (own(fm, 'when_to_use') !== undefined || own(fm, 'whenToUse') !== undefined) return 'intermediate';
  const metadata = own(fm, 'metadata');
  if (own(fm, 'version') !== undefined || (isMapping(metadata) && Object.hasOwn(metadata, 'gaia'))) return 'gaia';
  if (MEMOS_KEYS.some((k) => own(fm, k) !== undefined)) return 'memos';
  return 'agentskills';
}

function readName(fm: Mapping, warnings: string[]): string | null {
  const raw = text(own(fm, 'name'));
  if (raw === null) {
    if (own(fm, 'name') !== undefined) warnings.push('name: not a usable string; ignored');
    return null;
  }
  if (validateSkillName(raw).length === 0) return raw;
  const name = toSkillName(raw);
  warnings.push(`name: "${raw}" is not a valid skill name; normalised to "${name}"`);
  return name;
}

function readDescription(fm: Mapping, format: SkillFormat, warnings: string[]): string | null {
  const keys =
    format === 'intermediate'
      ? ['when_to_use', 'whenToUse', 'description']
      : format === 'memos'
        ? ['description', 'invocationGuide', 'invocation_guide', 'summary']
        : ['description'];
  const description = firstText(keys.map((k) => own(fm, k)));
  if (description !== null) warnings.push(...validateDescription(description));
  return description;
}

function readAllowedTools(fm: Mapping, warnings: string[]): string | null {
  for (const key of ['allowed-tools', 'allowed_tools', 'allowedTools']) {
    const value = own(fm, key);
    if (Array.isArray(value)) {
      warnings.push(`${key}: a list; joined into a space-separated string`);
      const joined = value
        .filter((v): v is string => typeof v === 'string')
        .map((v) => v.trim())
        .filter(Boolean)
        .join(' ');
      if (joined !== '') return joined;
    }
    const t = text(value);
    if (t !== null) return t;
  }
  return null;
}

function readKind(raw: string | null, warnings: string[]): 'playbook' | 'heuristic' | null {
  if (raw === null) return null;
  const kind = raw.toLowerCase();
  if (kind === 'playbook' || kind === 'heuristic') return kind;
  warnings.push(`kind: "${raw}" is not playbook or heuristic; ignored`);
  return null;
}

function readParents(fm: Mapping, metadata: Record<string, string>, warnings: string[]): SkillParents {
  const parents: SkillParents = { episodic: [], semantic: [], procedural: [] };
  const raw = own(fm, 'parents');
  if (isMapping(raw)) {
    for (const key of Object.keys(raw)) {
      const kind = key.toLowerCase();
      if (kind === 'episodic' || kind === 'semantic' || kind === 'procedural') parents[kind].push(...idList(raw[key]));
      else warnings.push(`parents.${key}: unknown parent kind ignored`);
    }
  } else if (raw !== undefined && raw !== null) {
    warnings.push('parents: not a mapping of episodic/semantic/procedural ids; ignored');
  }
  for (const kind of PARENT_KINDS) {
    for (const key of parentMetadataKeys(kind)) {
      if (Object.hasOwn(metadata, key)) parents[kind].push(...splitList(metadata[key] ?? ''));
    }
    parents[kind] = dedupe(parents[kind]);
  }
  return parents;
}

/** Top-level fields of Spector / MemOS with no field of their own, kept as prefixed metadata. */
function liftExtras(fm: Mapping, format: 'spector' | 'memos', metadata: Record<string, string>): void {
  const keys = format === 'spector' ? ['confidence'] : ['eta', 'status'];
  for (const key of keys) {
    const value = text(own(fm, key));
    if (value !== null && !Object.hasOwn(metadata, `${format}.${key}`)) setOwn(metadata, `${format}.${key}`, value);
  }
  if (format === 'memos') {
    const names = parameterNames(own(fm, 'parameters'));
    if (names.length > 0 && !Object.hasOwn(metadata, 'memos.parameters'))
      setOwn(metadata, 'memos.parameters', names.join(' '));
  }
}

function parameterNames(value: YamlValue | undefined): string[] {
  if (Array.isArray(value)) {
    return dedupe(
      value
        .map((p) => (isMapping(p) ? text(own(p, 'name')) : text(p)))
        .filter((p): p is string => p !== null)
        .map((p) => p.replace(/\s+/g, '_')),
    );
  }
  if (isMapping(value))
    return Object.keys(value)
      .map((k) => k.trim().replace(/\s+/g, '_'))
      .filter(Boolean);
  return [];
}

interface MemosStep {
  text: string;
  tool: string | null;
}

function memosSteps(fm: Mapping): MemosStep[] {
  let raw: YamlValue | undefined =
    own(fm, 'steps') ?? own(fm, 'procedure') ?? own(fm, 'procedureJson') ?? own(fm, 'procedure_json');
  if (isMapping(raw)) raw = own(raw, 'steps') ?? own(raw, 'procedure');
  if (typeof raw === 'string') {
    return raw
      .split('\n')
      .map((line) => line.replace(/^\s*(?:\d+[.)]|[-*+])\s+/, '').trim())
      .filter(Boolean)
      .map((line) => ({ text: line, tool: null }));
  }
  if (!Array.isArray(raw)) return [];
  const steps: MemosStep[] = [];
  for (const item of raw) {
    if (isMapping(item)) {
      const tool = firstText(['tool', 'toolName', 'tool_name'].map((k) => own(item, k)));
      const body = firstText(
        ['description', 'text', 'step', 'action', 'instruction', 'title', 'summary'].map((k) => own(item, k)),
      );
      const line = body ?? (tool !== null ? `Call \`${tool}\`.` : null);
      if (line !== null) steps.push({ text: line.replace(/\s+/g, ' '), tool });
    } else {
      const line = text(item);
      if (line !== null) steps.push({ text: line.replace(/\s+/g, ' '), tool: null });
    }
  }
  return steps;
}

function renderSteps(name: string | null, steps: MemosStep[]): string {
  const title =
    name === null
      ? 'Procedure'
      : name
          .split('-')
          .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
          .join(' ');
  return [`# ${title}`, '', ...steps.map((s, i) => `${i + 1}. ${s.text}`)].join('\n');
}

function flattenMetadata(value: Mapping, prefix: string, out: Record<string, string>, warnings: string[]): void {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (typeof v === 'string') setOwn(out, key, v);
    else if (typeof v === 'number' || typeof v === 'boolean') setOwn(out, key, String(v));
    else if (v === null) warnings.push(`metadata.${key}: empty value dropped`);
    else if (Array.isArray(v)) {
      if (v.every((item) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')) {
        setOwn(out, key, v.map(String).join(' '));
      } else {
        setOwn(out, key, JSON.stringify(v));
        warnings.push(`metadata.${key}: a list of structured values; kept as JSON text`);
      }
    } else flattenMetadata(v, key, out, warnings);
  }
}

/** Own property of a loaded mapping (never an inherited one such as `constructor`). */
function own(map: Mapping, key: string): YamlValue | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A scalar as trimmed, non-empty text; anything else is null. */
function text(value: YamlValue | undefined): string | null {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

function firstText(values: (YamlValue | undefined)[]): string | null {
  for (const v of values) {
    const t = text(v);
    if (t !== null) return t;
  }
  return null;
}

/** Splits a space- or comma-separated list. */
function splitList(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}

/** Tool names from a string, a list of strings, or a list of `{name}` / `{tool}` objects. */
function toolNames(value: YamlValue | undefined): string[] {
  if (typeof value === 'string') return splitList(value);
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const item of value) {
    if (isMapping(item)) {
      const name = firstText(['name', 'tool', 'id'].map((k) => own(item, k)));
      if (name !== null) names.push(...splitList(name));
    } else {
      const name = text(item);
      if (name !== null) names.push(...splitList(name));
    }
  }
  return names;
}

function idList(value: YamlValue | undefined): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => splitList(text(v) ?? ''));
  const t = text(value);
  return t === null ? [] : splitList(t);
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
