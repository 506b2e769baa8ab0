import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Memory } from '../../app/memory.js';
import { VERSION } from '../version.js';
import type { LiveSessions } from './live-sessions.js';
import { registerSkillResources } from './resources.js';
import { registerTools } from './tools.js';

const INSTRUCTIONS = `Skillsmith is procedural memory: it learns reusable procedures (skills) from your tool calls.
At the start of a task call recall_skills with the goal, a session id of your choosing (it starts the session) and the names of your tools (so that only procedures you can follow come back), and follow what it returns.
Record each tool call with record_tool_call under the same session id (a session not started by a recall needs the goal on its first call) and finish with end_session and the outcome.
Skills are learned by a synthesis pass: call synthesize after sessions end, unless this server runs passes by itself (synthesis.auto).`;

/** One MCP server over the memory (one per connection; the live sessions are shared between them). */
export function createMcpServer(memory: Memory, live: LiveSessions): McpServer {
  const server = new McpServer({ name: 'skillsmith', version: VERSION }, { instructions: INSTRUCTIONS });
  registerTools(server, memory, live);
  registerSkillResources(server, memory);
  tellListChanges(server, memory);
  return server;
}

/** The skill events after which `resources/list` (one `skill://<name>` per live skill) answers otherwise. */
const LIST_CHANGES: ReadonlySet<string> = new Set([
  'skill.created',
  'skill.superseded',
  'skill.status_changed',
  'skill.retired',
  'skill.enabled',
  'skill.disabled',
  'skill.imported',
  'skill.promoted',
  'skill.renamed',
  'skill.edited',
  'skill.reverted',
  'skill.revised',
  'skill.forgotten',
]);

/**
 * Sends `notifications/resources/list_changed` (the capability the server declares) when a skill is learned, renamed,
 * switched on or off, retired or forgotten: a client that keeps the list reads it again. The events of one pass
 * make one notification.
 */
function tellListChanges(server: McpServer, memory: Memory): void {
  let timer: NodeJS.Timeout | null = null;
  const off = memory.on('*', (e) => {
    if (!LIST_CHANGES.has(e.type) || timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (server.isConnected()) server.sendResourceListChanged();
    }, 20);
    timer.unref();
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    off();
    if (timer) clearTimeout(timer);
    closed?.();
  };
}
