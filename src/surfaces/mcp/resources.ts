import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Memory } from '../../memory.js';
import type { Skill } from '../../domain/types.js';

/** Served as resources: live, enabled skills of the internal corpus (imported ones only once a person promoted them). */
const served = (s: Skill) => s.corpus === 'internal' && s.enabled && !s.supersededBy;

/** Each skill as `skill://<name>`, whose content is its SKILL.md; resources/list lists them. */
export function registerSkillResources(server: McpServer, memory: Memory): void {
  server.registerResource(
    'skill',
    new ResourceTemplate('skill://{name}', {
      list: async () => ({
        resources: (await memory.listSkills({ corpus: 'internal' })).filter(served).map((s) => ({
          uri: `skill://${s.name}`,
          name: s.name,
          title: s.name,
          description: s.description,
          mimeType: 'text/markdown',
        })),
      }),
      complete: {
        name: async (prefix) => (await memory.listSkills({ corpus: 'internal' })).filter(served).map((s) => s.name).filter((n) => n.startsWith(prefix)),
      },
    }),
    { title: 'Skill', description: 'A learned procedure as SKILL.md', mimeType: 'text/markdown' },
    async (uri, { name }) => {
      const wanted = decodeURIComponent(String(name));
      const skill = await memory.getSkill(wanted);
      if (!skill || !served(skill)) throw new Error(`no skill named "${wanted}" (list them with resources/list or list_skills)`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: skill.skillMd }] };
    },
  );
}
