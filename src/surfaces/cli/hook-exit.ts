/**
 * Claude Code and Gemini CLI read exit 2 from a hook as "block" (the prompt, or the agent's stop): whatever went wrong
 * with a command line that says `--hook`, a misspelt flag or command included, its error is 1.
 */
export function hookExitCode(argv: readonly string[], code: number): number {
  return code === 2 && argv.some((a) => a === '--hook' || a.startsWith('--hook=')) ? 1 : code;
}
