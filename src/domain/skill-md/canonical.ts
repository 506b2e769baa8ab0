// Any ParsedSkill, whatever system wrote it, to the one document we emit. Pure and total: the result
// always passes validateSkillMd once serialized.

import { normalizeBody } from './frontmatter.js';
import {
  KIND_METADATA_KEYS,
  parentMetadataKeys,
  TOOLS_METADATA_KEYS,
  VERSION_METADATA_KEYS,
  type ParsedSkill,
  type SkillParents,
} from './parse.js';
import { titleOfName, toDescription, toSkillName, type CanonicalSkillDoc } from './serialize.js';
import { capAtWordBoundary } from './text.js';
import { MAX_COMPATIBILITY_LENGTH } from './validate.js';

export interface CanonicalOptions {
  /** The configured license; the only source of `license` (a model or an imported file never sets it). */
  license: string;
  /** Version to emit; wins over the parsed one. Coerced to SemVer (`2` -> `2.0.0`). */
  version?: string;
  /** The folder the SKILL.md is in: its name when the file gives none (as skill loaders name such a skill). */
  dirName?: string;
}

/** The version of a skill nobody versioned yet. */
export const INITIAL_VERSION = '1.0.0';

const PARENT_KINDS: (keyof SkillParents)[] = ['episodic', 'semantic', 'procedural'];

/**
 * Maps a ParsedSkill to a CanonicalSkillDoc that validates:
 * - `name`: the parsed name through toSkillName; else the body's first `# heading`; else the description;
 *   else `skill`.
 * - `description`: the parsed description through toDescription; else the body's first line of prose
 *   (markdown markers stripped); else its first heading; else words of the name.
 * - `license`: `opts.license`, always.
 * - `metadata`: `version` (opts.version, else the parsed version, else 1.0.0, as SemVer), `tools-required`
 *   (space-separated, when there are tools), `kind` (parsed; else `playbook` when the body has numbered
 *   steps, else `heuristic`), `parents-episodic|semantic|procedural` (space-separated ids, when any), then
 *   every other flat metadata entry in its order. Keys the fields above were read from (aliases such as
 *   `gaia.tools_required`) are not repeated.
 * - `body`: normalised (LF, trimmed); when empty, `# <Title>` and the description.
 */
export function toCanonicalDoc(parsed: ParsedSkill, opts: CanonicalOptions): CanonicalSkillDoc {
  const rawBody = normalizeBody(typeof parsed.body === 'string' ? parsed.body : '');
  const name = canonicalName(parsed, rawBody, opts.dirName);
  const description = canonicalDescription(parsed, rawBody, name);
  const body = rawBody.trim() !== '' ? rawBody : `# ${titleOfName(name)}\n\n${description}`;

  const metadata: Record<string, string> = {};
  metadata.version = toSemver(opts.version) ?? toSemver(parsed.version) ?? INITIAL_VERSION;
  const tools = (parsed.toolsRequired ?? [])
    .flatMap((t) => (typeof t === 'string' ? t.split(/\s+/) : []))
    .filter(Boolean);
  if (tools.length > 0) metadata['tools-required'] = [...new Set(tools)].join(' ');
  metadata.kind = parsed.kind ?? (hasNumberedSteps(body) ? 'playbook' : 'heuristic');
  for (const kind of PARENT_KINDS) {
    const ids = (parsed.parents?.[kind] ?? []).filter((id) => typeof id === 'string' && id.trim() !== '');
    if (ids.length > 0) metadata[`parents-${kind}`] = ids.join(' ');
  }
  const reserved = new Set([
    ...TOOLS_METADATA_KEYS,
    ...VERSION_METADATA_KEYS,
    ...KIND_METADATA_KEYS,
    ...PARENT_KINDS.flatMap((k) => parentMetadataKeys(k)),
  ]);
  for (const [key, value] of Object.entries(parsed.metadata ?? {})) {
    if (reserved.has(key) || typeof value !== 'string') continue;
    Object.defineProperty(metadata, key, { value, enumerable: true, writable: true, configurable: true });
  }

  const doc: CanonicalSkillDoc = { name, description, license: opts.license, metadata, body };
  const compatibility =
    typeof parsed.compatibility === 'string'
      ? capAtWordBoundary(parsed.compatibility.trim(), MAX_COMPATIBILITY_LENGTH)
      : '';
  if (compatibility !== '') doc.compatibility = compatibility;
  const allowedTools = typeof parsed.allowedTools === 'string' ? parsed.allowedTools.trim() : '';
  if (allowedTools !== '') doc.allowedTools = allowedTools;
  return doc;
}

/** `1` -> `1.0.0`, `v1.2` -> `1.2.0`, `1.2.3-rc.1` kept; anything that is not a version -> null. */
export function toSemver(version: string | null | undefined): string | null {
  if (typeof version !== 'string') return null;
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (!m) return null;
  const part = (p: string | undefined): string => String(Number(p ?? '0'));
  return `${part(m[1])}.${part(m[2])}.${part(m[3])}${m[4] ?? ''}${m[5] ?? ''}`;
}

function canonicalName(parsed: ParsedSkill, body: string, dirName?: string): string {
  if (typeof parsed.name === 'string' && parsed.name.trim() !== '') return toSkillName(parsed.name);
  if (dirName && toSkillName(dirName) !== 'skill') return toSkillName(dirName);
  const heading = /^#{1,6}[ \t]+(.+)$/m.exec(body)?.[1];
  if (heading !== undefined && toSkillName(heading) !== 'skill') return toSkillName(heading);
  if (typeof parsed.description === 'string') return toSkillName(parsed.description);
  return toSkillName('');
}

function canonicalDescription(parsed: ParsedSkill, body: string, name: string): string {
  const fromParsed = typeof parsed.description === 'string' ? toDescription(parsed.description) : '';
  if (fromParsed !== '') return fromParsed;
  // The first line of prose says what the skill is for better than its title; the title is the fallback.
  let heading: string | null = null;
  for (const line of body.split('\n')) {
    const isHeading = /^\s*#{1,6}\s/.test(line);
    const stripped = toDescription(line.replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, ''));
    if (stripped === '' || !/[\p{L}\p{N}]/u.test(stripped)) continue;
    if (!isHeading) return stripped;
    heading ??= stripped;
  }
  return heading ?? name.replace(/-/g, ' ');
}

function hasNumberedSteps(body: string): boolean {
  return (body.match(/^\s*\d+[.)][ \t]+\S/gm) ?? []).length >= 2;
}
