import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Memory } from '../../app/memory.js';
import type { Skill } from '../../domain/types.js';

/** The error code the MCP specification gives a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/** Served as resources: live, enabled skills of the internal corpus (imported ones only once a person promoted them). */
const served = (s: Skill) => s.corpus === 'internal' && s.enabled && !s.supersededBy;

/** Each skill as `skill://<name>`, whose content is its SKILL.md; resources/list lists them. */
export function registerSkillResources(server: McpServer, memory: Memory): void {
  const read = async (uri: string, name: string): Promise<ReadResourceResult> => {
    const skill = await memory.skills.get(name);
    if (!skill || !served(skill))
      throw notFound(uri, `no skill named "${name}" (list them with resources/list or list_skills)`);
    return { contents: [{ uri, mimeType: 'text/markdown', text: skill.skillMd }] };
  };
  server.registerResource(
    'skill',
    new ResourceTemplate('skill://{name}', {
      list: async () => ({
        resources: (await memory.skills.list({ corpus: 'internal' })).filter(served).map((s) => ({
          uri: `skill://${s.name}`,
          name: s.name,
          title: s.name,
          description: s.description,
          mimeType: 'text/markdown',
        })),
      }),
      complete: {
        name: async (prefix) =>
          (await memory.skills.list({ corpus: 'internal' }))
            .filter(served)
            .map((s) => s.name)
            .filter((n) => n.startsWith(prefix)),
      },
    }),
    { title: 'Skill', description: 'A learned procedure as SKILL.md', mimeType: 'text/markdown' },
    async (uri, { name }) => read(uri.href, decodeURIComponent(String(name))),
  );
  // The SDK answers a URI no template matches with -32602; every unknown resource is -32002 here, as the
  // specification asks. Registered after registerResource, so this handler replaces the SDK's.
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const m = /^skill:\/\/([^/?#]+)$/.exec(uri);
    if (!m) throw notFound(uri, `no resource ${uri}: skills are skill://<name>`);
    let name: string;
    try {
      name = decodeURIComponent(m[1]);
    } catch {
      throw notFound(uri, `no resource ${uri}`);
    }
    return read(uri, name);
  });
}

function notFound(uri: string, message: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, message, { uri });
}
