/**
 * Which tools an agent has, as a recall's `tools` names them: each name as it is, or a name ending in `*` for every
 * tool it starts (`mcp__*`: the tools of any MCP server a Claude Code agent has). Pure.
 */
export function toolMatcher(tools: readonly string[]): (tool: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const t of tools) {
    if (t.endsWith('*')) prefixes.push(t.slice(0, -1));
    else exact.add(t);
  }
  return (tool) => exact.has(tool) || prefixes.some((p) => tool.startsWith(p));
}
