/**
 * The key an agent's session is stored under when its transcript is ingested (`claude-code:<id>` for Claude
 * Code's, `gemini-cli:<id>` for Gemini CLI's: capture/claude-code.ts, capture/gemini.ts), from the hook event that
 * names it; an event of another agent keeps the id as given.
 */
export function agentSessionId(event: string | undefined, sessionId: string): string {
  if (event === 'UserPromptSubmit') return `claude-code:${sessionId}`;
  if (event === 'BeforeAgent') return `gemini-cli:${sessionId}`;
  return sessionId;
}
