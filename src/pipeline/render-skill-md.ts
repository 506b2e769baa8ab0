import { serializeSkillMd } from '../domain/skill-md/index.js';
import type { Draft, Skill } from '../domain/types.js';
import { sessionRef } from '../domain/session-ref.js';
import { editOf, givenNameOf, metadataOf, type EditMark, type GivenName } from '../domain/learned-by.js';

export interface RenderOptions {
  license: string;
  version: string;
  id: string;
  sourceSessions: string[];
  clusterId: string | null;
  learnedBy: string;
  /** The name a person gave the skill (skills rename), when not its distiller: kept by every later write. */
  given?: GivenName | null;
  /** A person's edit of the text (skills edit), when there is one: kept by every later write until reverted. */
  edit?: EditMark | null;
}

/** The canonical SKILL.md of a draft: license and version injected, never taken from a distiller. */
export function renderSkillMd(
  draft: Pick<Draft, 'name' | 'whenToUse' | 'toolsRequired' | 'kind' | 'body'>,
  o: RenderOptions,
): string {
  const metadata: Record<string, string> = {
    version: o.version,
    'tools-required': draft.toolsRequired.join(' '),
    kind: draft.kind,
    'skill-id': o.id,
    'learned-by': o.learnedBy,
  };
  if (o.given) {
    metadata['named-by'] = o.given.namedBy;
    if (o.given.formerNames.length) metadata['renamed-from'] = o.given.formerNames.join(' ');
  }
  if (o.edit) {
    metadata['edited-by'] = o.edit.editedBy;
    if (o.edit.editedAt) metadata['edited-at'] = o.edit.editedAt;
    if (o.edit.suggests?.length) metadata['sessions-suggest'] = o.edit.suggests.join(' ');
  }
  if (o.clusterId) metadata.cluster = o.clusterId;
  if (o.sourceSessions.length) {
    // Provenance ids, capped: the full list is in the store (skills explain / sourceSessions).
    // Opaque references, never the raw session ids (user-supplied strings): the store maps them back. In order
    // of the references, so two writes of one skill from the same sessions (a pass, then its branch stage, which
    // reads them in the store's order) name the same ones and a version's diff shows no churn.
    metadata['parents-episodic'] = o.sourceSessions.map(sessionRef).sort().slice(0, 8).join(' ');
    metadata['parents-episodic-count'] = String(o.sourceSessions.length);
  }
  return serializeSkillMd({
    name: draft.name,
    description: draft.whenToUse,
    license: o.license,
    metadata,
    body: draft.body,
  });
}

/**
 * A skill's SKILL.md written from its own fields (after a new body or new sources, a new name): what a pass writes
 * for it, with `learnedBy` the distiller that wrote its text and `clusterId` the group its text names (by default
 * the skill's cluster, else the one its stored text names), and `given` the name a person gave it (by default, the
 * one its stored text says was given).
 */
export function renderStoredSkill(
  skill: Skill,
  o: {
    license: string;
    learnedBy: string;
    clusterId?: string | null;
    given?: GivenName | null;
    edit?: EditMark | null;
  },
): string {
  return renderSkillMd(
    {
      name: skill.name,
      whenToUse: skill.description,
      toolsRequired: skill.toolsRequired,
      kind: skill.kind,
      body: skill.body,
    },
    {
      license: o.license,
      version: skill.version,
      id: skill.id,
      sourceSessions: skill.sourceSessions,
      // A skill no cluster holds (compiled from chosen sessions) keeps the origin its text names (`compile`).
      clusterId: o.clusterId !== undefined ? o.clusterId : (skill.clusterId ?? metadataOf(skill.skillMd, 'cluster')),
      learnedBy: o.learnedBy,
      // A name a person gave stays theirs (by default, the one its stored text says was given).
      given: o.given !== undefined ? o.given : givenNameOf(skill.skillMd),
      // A person's edit stays theirs too (by default, the one its stored text says was made).
      edit: o.edit !== undefined ? o.edit : editOf(skill.skillMd),
    },
  );
}
