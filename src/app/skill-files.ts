import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { sameButSupport } from '../domain/evidence-line.js';
import { metadataOf, withoutVersionMarks } from '../domain/learned-by.js';
import { redactCapture } from '../domain/redact.js';
import { riskyCommands, withoutRiskyCommands } from '../domain/risky-command.js';
import { redactSkillMd } from '../domain/skill-md/redact-skill-md.js';
import type { Skill } from '../domain/types.js';
import type { SkillFile, SkillVersion } from '../store/store.js';
import { neutraliseInstructions, withoutHiddenText } from '../domain/untrusted-text.js';
import type { Catalog } from './catalog.js';
import type { Changes } from './changes.js';
import type { AppContext } from './context.js';
import type { ExportResult, ImportResult } from './types.js';
import { newSkill } from '../domain/new-skill.js';
import { InputError } from '../errors/input-error.js';

/**
 * Skill files: SKILL.md folders out (export, render for a download) and in (import into the external corpus).
 * The only service that reads or writes skill folders on disk.
 */
export class SkillFiles {
  constructor(
    private readonly ctx: AppContext,
    private readonly catalog: Catalog,
    private readonly changes: Changes,
  ) {}

  /**
   * Writes `<dir>/<name>/SKILL.md` for each live skill (internal by default). Export is always explicit. A file
   * already there is replaced only when this memory wrote it for that skill (`wroteFor`) or it is what is written
   * now; else the skill is skipped, unless `force`. Other files in the folder are left as they are.
   */
  async exportSkills(
    dir: string,
    opts: { namespace?: string; names?: string[]; includeExternal?: boolean; force?: boolean } = {},
  ): Promise<ExportResult> {
    const root = resolve(dir);
    // A file where the folder should be: said before anything is rendered (was a raw ENOTDIR per skill).
    if (existsSync(root) && !statSync(root).isDirectory())
      throw new InputError(`cannot export into ${root}: it is a file, not a folder`);
    const rendered = await this.renderSkillFiles(opts);
    const result: ExportResult = { dir: root, written: [], skipped: rendered.skipped, stale: [] };
    const { filesThere, writeSkillFolder } = await import('../skill-files/skill-folder.js');
    const { validateSkillMd } = await import('../domain/skill-md/index.js');
    // The ids of this namespace's learned skills, superseded ones too: read once, when a file there names another.
    let learned: Promise<Set<string>> | undefined;
    const learnedIds = () =>
      (learned ??= this.catalog
        .listSkills({ namespace: opts.namespace, includeSuperseded: true })
        .then((all) => new Set(all.filter((k) => k.corpus === 'internal').map((k) => k.id))));
    for (const { skill: s, text } of rendered.files) {
      // An imported skill goes out as it came in: its stored folder, byte for byte. A learned one is its
      // SKILL.md. Never through a symlink: a link planted in the output folder (for the skill folder, a
      // subfolder or a file) would make export overwrite a file elsewhere.
      const stored = s.corpus === 'external' ? await this.ctx.requireStore().skillFiles(s.id, s.version) : [];
      const files = stored.length ? stored : [{ path: 'SKILL.md', bytes: Buffer.from(text, 'utf8') }];
      const folder = join(root, s.name);
      const path = join(folder, 'SKILL.md');
      // What a person edited there, or another tool wrote, is not overwritten (unless forced): only what this memory
      // wrote for that skill, or what it writes now. A learned skill's SKILL.md may name (skill-id) another skill of
      // the memory whose text it is: one this skill superseded under its name, or that had the name before a rename.
      const there = opts.force ? [] : (filesThere(folder, files) ?? []);
      const ours = this.wroteFor(s.id);
      const changed: string[] = [];
      for (const f of there) {
        if (files.some((n) => n.path === f.path && n.bytes.equals(f.bytes)) || (await ours(f))) continue;
        const named =
          s.corpus === 'internal' && f.path === 'SKILL.md' ? metadataOf(f.bytes.toString('utf8'), 'skill-id') : null;
        if (named && named !== s.id && (await learnedIds()).has(named) && (await this.wroteFor(named)(f))) continue;
        changed.push(f.path);
      }
      if (changed.length) {
        result.skipped.push({ name: s.name, reason: editedReason(s, folder, changed) });
        continue;
      }
      const refused = writeSkillFolder(folder, files);
      if (refused) {
        result.skipped.push({ name: s.name, reason: refused });
        continue;
      }
      result.written.push({ name: s.name, path, ...(stored.length ? { files: stored.length } : {}) });
      const original = stored.find((f) => f.path === 'SKILL.md');
      if (original) {
        const check = validateSkillMd(original.bytes.toString('utf8'), { dirName: s.name });
        if (!check.valid)
          (result.warnings ??= []).push({
            name: s.name,
            reason: `written as it was imported, and its SKILL.md does not validate, so an agent may not load it: ${check.errors.join('; ')}`,
          });
      }
      // A read-only memory is exported all the same; it cannot keep the record that it was.
      const store = this.ctx.requireStore();
      if (!store.readOnly)
        await store.appendEvent(
          s.namespace,
          'skill.exported',
          s.id,
          { name: s.name, path },
          this.ctx.now().toISOString(),
        );
    }
    result.stale = await this.staleExports(root, result.written, !opts.names, opts.namespace);
    await this.changes.events();
    return result;
  }

  /**
   * The folders below `root` that an earlier export wrote for a learned skill now written under another name
   * (renamed), or, when every skill was exported (`all`), for one that is superseded: each holds only a SKILL.md
   * whose `skill-id` names that skill. One whose text is a text this memory wrote for it (`wroteFor`: a version of
   * it, as export redacts it, or that version before a reinforcement restated its counts) is removed; an edited one
   * is left, and said.
   */
  private async staleExports(
    root: string,
    written: ExportResult['written'],
    all: boolean,
    namespace?: string,
  ): Promise<ExportResult['stale']> {
    if (!existsSync(root)) return [];
    const skills = await this.catalog.listSkills({ namespace, includeSuperseded: true });
    const byId = new Map(skills.filter((s) => s.corpus === 'internal').map((s) => [s.id, s]));
    const writtenNames = new Set(written.map((w) => w.name));
    const exportedAs = new Map<string, string>();
    for (const s of skills) if (!s.supersededBy && writtenNames.has(s.name)) exportedAs.set(s.id, s.name);
    const stale: ExportResult['stale'] = [];
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      // Never through a link, and never a folder this export wrote or one that holds anything else.
      if (!entry.isDirectory() || writtenNames.has(entry.name)) continue;
      const folder = join(root, entry.name);
      const inside = readdirSync(folder, { withFileTypes: true });
      if (inside.length !== 1 || inside[0]!.name !== 'SKILL.md' || !inside[0]!.isFile()) continue;
      const bytes = readFileSync(join(folder, 'SKILL.md'));
      const skill = byId.get(metadataOf(bytes.toString('utf8'), 'skill-id') ?? '');
      if (!skill) continue;
      const now = exportedAs.get(skill.id) ?? null;
      if (now === null && !(all && skill.supersededBy)) continue;
      const ours = await this.wroteFor(skill.id)({ path: 'SKILL.md', bytes });
      if (ours) rmSync(folder, { recursive: true });
      stale.push({ name: entry.name, path: folder, now, removed: ours });
    }
    return stale;
  }

  /**
   * Whether a file found in a skill folder on disk is one this memory wrote for the skill `skillId`: its SKILL.md
   * as a version of it is exported (redacted), or that version before a reinforcement restated its counts and
   * sources (sameButSupport), or that version but for its version and edit marks (a text a person kept with
   * `skills edit` is the version the memory made of it); or a file of a version of it as it was imported, byte for
   * byte. Anything else was written by a person (an edit) or another tool, and is theirs. The versions (and their
   * stored files) are read once, when first asked.
   */
  private wroteFor(skillId: string): (file: SkillFile) => Promise<boolean> {
    const store = this.ctx.requireStore();
    let versions: Promise<SkillVersion[]> | undefined;
    let texts: Promise<string[]> | undefined;
    let stored: Promise<SkillFile[]> | undefined;
    const read = () => (versions ??= store.skillVersions(skillId));
    return async (file) => {
      if (file.path === 'SKILL.md') {
        texts ??= read().then((vs) => vs.map((v) => redactSkillMd(v.skillMd, redactCapture)));
        const text = file.bytes.toString('utf8');
        const bare = withoutVersionMarks(text);
        for (const ours of await texts)
          if (sameButSupport(ours, text) || sameButSupport(withoutVersionMarks(ours), bare)) return true;
      }
      stored ??= read().then(async (vs) =>
        (await Promise.all(vs.map((v) => store.skillFiles(skillId, v.version)))).flat(),
      );
      return (await stored).some((f) => f.path === file.path && f.bytes.equals(file.bytes));
    };
  }

  /**
   * The exported SKILL.md texts of the live skills (internal by default), redacted and validated, without
   * writing anything: what `exportSkills` writes, and what a read-only surface (a download) serves.
   */
  async renderSkillFiles(
    opts: { namespace?: string; names?: string[]; includeExternal?: boolean } = {},
  ): Promise<{ files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] }> {
    const skills = (await this.catalog.listSkills({ namespace: opts.namespace })).filter(
      (s) => (opts.includeExternal || s.corpus === 'internal') && (!opts.names || opts.names.includes(s.name)),
    );
    const out: { files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] } = {
      files: [],
      skipped: [],
    };
    const { validateSkillMd, validateSkillName } = await import('../domain/skill-md/index.js');
    for (const s of skills) {
      // The name becomes a directory: only a valid skill name may, so nothing escapes `dir`.
      const problems = validateSkillName(s.name);
      if (problems.length) {
        out.skipped.push({ name: s.name, reason: problems.join('; ') });
        continue;
      }
      const text = redactSkillMd(s.skillMd, redactCapture);
      const check = validateSkillMd(text, { dirName: s.name });
      if (!check.valid) {
        out.skipped.push({ name: s.name, reason: check.errors.join('; ') });
        continue;
      }
      out.files.push({ skill: s, text });
    }
    return out;
  }

  /**
   * Reads skill folders written by other systems into the external corpus: listed and exported, never
   * recalled until a person promotes them. Every folder holding a SKILL.md below `dir` is read (dot-folders
   * too), whole: its files are kept byte for byte and exported as they came. The recallable copy (the row's
   * SKILL.md) is the canonical form with secrets redacted and instructions neutralised, its licence as
   * written (none invented); what that changed, and what does not validate, is reported as warnings, the files
   * themselves are never rewritten. A different skill under a name already imported is refused unless
   * `force`, which stores it as the next version of that skill (lineage in its versions).
   */
  async importSkills(
    dir: string,
    opts: { namespace?: string; actor?: string; force?: boolean } = {},
  ): Promise<ImportResult> {
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    const result: ImportResult = { imported: [], skipped: [], warnings: [] };
    const { parseSkillMd, serializeSkillMd, toCanonicalDoc, validateSkillMd } = await import(
      '../domain/skill-md/index.js'
    );
    const { findSkillFolders, readSkillFolder } = await import('../skill-files/skill-folder.js');
    const { scanSkillFiles } = await import('../skill-files/scan.js');
    const { hasInstructions } = await import('../domain/untrusted-text.js');
    const root = resolve(dir);
    if (!existsSync(root)) throw new InputError(`import: ${root} does not exist`);
    const realRoot = realpathSync(root);
    const found = findSkillFolders(root);
    for (const s of found.skipped) result.skipped.push({ path: s.path, reason: s.reason, refused: s.refused ?? false });
    const seenNames = new Map<string, string>();
    for (const folder of found.folders) {
      const file = join(folder, 'SKILL.md');
      // A skill folder must stay inside the import root (no symlink leads out of it).
      const real = realpathSync(file);
      if (real !== realRoot && !real.startsWith(realRoot + sep)) {
        result.skipped.push({
          path: file,
          reason: `refused: a symlink leads out of ${root} (to ${real})`,
          refused: true,
        });
        continue;
      }
      let read: ReturnType<typeof readSkillFolder>;
      try {
        read = readSkillFolder(folder);
      } catch (e) {
        result.skipped.push({ path: file, reason: (e as Error).message, refused: true });
        continue;
      }
      for (const s of read.skipped)
        result.skipped.push({ path: join(folder, s.path), reason: s.reason, refused: false });
      const bytes = read.files.find((f) => f.path === 'SKILL.md')!.bytes;
      const original = bytes.toString('utf8');
      const parsed = parseSkillMd(original);
      const doc = toCanonicalDoc(parsed, { license: parsed.license ?? '', dirName: folder.split(sep).pop() });
      const warn = (reason: string, path = file, line?: number) =>
        result.warnings!.push({ path, ...(line ? { line } : {}), reason });
      // The folder as written is checked, never changed: what does not validate is reported.
      const asWritten = validateSkillMd(original, { dirName: folder.split(sep).pop() });
      for (const err of asWritten.errors) warn(`does not validate as written (kept as is): ${err}`);
      // Pre-approved tools are a grant someone else wrote: the folder keeps it, the copy a promotion exports does not.
      if (doc.allowedTools) {
        warn(
          `allowed-tools (${doc.allowedTools.slice(0, 80)}) pre-approves tools in agents that read it (Claude Code): kept in the folder as written, left out of the copy that can be recalled and promoted`,
        );
        doc.allowedTools = undefined;
      }
      if (!Buffer.from(original, 'utf8').equals(bytes))
        warn('is not UTF-8 text: read as UTF-8, so its other characters are garbled in the copy that can be recalled');
      if (original.startsWith('\uFEFF'))
        warn('starts with a byte order mark, which some skill loaders refuse (kept as written)');
      for (const f of scanSkillFiles(read.files, {
        redact: redactCapture,
        hasInstructions: (t) => hasInstructions(t, { source: 'skill' }),
        risky: (t) => riskyCommands(t).length > 0,
      })) {
        warn(f.reason, join(folder, ...f.path.split('/')), f.line);
      }
      // The copy that can be recalled once promoted: untrusted text, so secrets redacted, instruction-like
      // sentences neutralised and destructive or fetch-and-run commands left out, in every value and in the body.
      const text = redactSkillMd(serializeSkillMd(doc), (t) =>
        withoutHiddenText(withoutRiskyCommands(neutraliseInstructions(redactCapture(t), { source: 'skill' }))),
      );
      const check = validateSkillMd(text);
      if (!check.valid) {
        result.skipped.push({ path: file, reason: check.errors.join('; '), refused: true });
        continue;
      }
      // Two folders whose names sanitise to one skill name: the first wins, the second is named.
      const first = seenNames.get(doc.name);
      if (first) {
        result.skipped.push({
          path: file,
          reason: `same skill name "${doc.name}" as ${first}: rename one of them`,
          refused: true,
        });
        continue;
      }
      seenNames.set(doc.name, file);
      // A learned skill under this name (not this skill promoted): both would be exported to one folder.
      const learned = (await store.listSkills(ns, { corpus: 'internal' })).find(
        (s) => s.name === doc.name && s.skillMd !== text,
      );
      if (learned) {
        result.skipped.push({
          path: file,
          reason: `refused: a learned skill is named ${doc.name}, and an export would write both to one folder; rename the learned one (skillsmith skills rename ${doc.name} NEW-NAME) or this folder's skill, then import again`,
          refused: true,
        });
        continue;
      }
      const existing = (await store.listSkills(ns, { corpus: 'external' })).find((s) => s.name === doc.name);
      const priorFiles = existing ? await store.skillFiles(existing.id, existing.version) : [];
      if (existing && existing.skillMd === text && sameFiles(priorFiles, read.files)) {
        result.skipped.push({ path: file, reason: `already imported as ${doc.name}`, refused: false });
        continue;
      }
      if (existing && !opts.force) {
        result.skipped.push({
          path: file,
          reason: `refused: a different skill named ${doc.name} is already imported (version ${existing.version}); import with --force to store this one as its next version`,
          refused: true,
        });
        continue;
      }
      const promoted = (await store.listSkills(ns, { corpus: 'internal' })).find(
        (s) => s.name === doc.name && s.skillMd === text,
      );
      if (promoted) {
        result.skipped.push({ path: file, reason: `already promoted as ${doc.name}`, refused: false });
        continue;
      }
      const reparsed = parseSkillMd(text);
      // The row's description is the recallable copy's (redacted, neutralised), as its SKILL.md is: it reaches
      // list_skills, resources/list, the REST API and the dashboard, and an embedder that may be an HTTP server.
      const description = reparsed.description ?? '';
      const [embedding] = await this.ctx.embedder.embed([description]);
      const at = this.ctx.now().toISOString();
      const tools = reparsed.toolsRequired;
      const declared = doc.metadata.version ?? '1.0.0';
      const version = existing
        ? nextVersion(
            existing.version,
            declared,
            (await store.skillVersions(existing.id)).map((v) => v.version),
          )
        : declared;
      const skill: Skill = newSkill(at, {
        id: existing?.id,
        namespace: ns,
        name: doc.name,
        description,
        skillMd: text,
        body: reparsed.body,
        version,
        kind: reparsed.kind ?? (tools.length ? 'playbook' : 'heuristic'),
        corpus: 'external',
        toolsRequired: tools,
        toolSequence: tools,
        embedderId: this.ctx.embedder.id,
        embedding,
        createdAt: existing?.createdAt,
      });
      const detail = {
        from: file,
        format: parsed.format,
        warnings: parsed.warnings,
        files: read.files.length,
        ...(existing ? { replaces: existing.version } : {}),
      };
      await store.writeSkill({
        action: 'import',
        skill,
        parents: [],
        actor: opts.actor ?? 'user',
        detail,
        files: read.files,
        at,
      });
      result.imported.push({
        name: doc.name,
        format: parsed.format,
        version,
        files: read.files.length,
        ...(existing ? { replaces: existing.version } : {}),
      });
    }
    if (found.folders.length === 0)
      result.skipped.push({
        path: root,
        reason: 'no SKILL.md found in this folder or any folder below it',
        refused: true,
      });
    // Imported skills are external: never recalled, so no recall index changes; only the events go out.
    await this.changes.events();
    return result;
  }
}

/** Why a skill's folder was not written: files there that this memory did not write for it, and what to do. */
function editedReason(skill: Skill, folder: string, paths: string[]): string {
  if (skill.corpus === 'internal')
    return `SKILL.md there was edited since it was exported (or was not written by this memory): left as it is; \`skills edit ${skill.name}\` keeps an edit in the memory, or \`--force\` overwrites it`;
  const what = paths.length === 1 ? `${paths[0]} there was` : `${paths.join(', ')} there were`;
  return `${what} edited since it was exported (or not written by this memory): left as it is; \`skills import ${folder} --force\` keeps the folder in the memory as its next version, or \`--force\` overwrites it`;
}

/** The same files, byte for byte. */
function sameFiles(a: { path: string; bytes: Buffer }[], b: { path: string; bytes: Buffer }[]): boolean {
  if (a.length !== b.length) return false;
  const byPath = new Map(a.map((f) => [f.path, f.bytes]));
  return b.every((f) => byPath.get(f.path)?.equals(f.bytes) === true);
}

/** The version for a forced re-import: the file's own when it is new for this skill, else the next patch. */
function nextVersion(current: string, declared: string, taken: string[]): string {
  if (!taken.includes(declared) && declared !== current) return declared;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(current);
  const [maj, min] = m ? [Number(m[1]), Number(m[2])] : [1, 0];
  let pat = m ? Number(m[3]) : 0;
  let v: string;
  do v = `${maj}.${min}.${++pat}`;
  while (taken.includes(v));
  return v;
}
