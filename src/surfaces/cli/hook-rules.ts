/**
 * Claude Code and Gemini CLI read exit 2 from a hook as "block" (the prompt, or the agent's stop): whatever went wrong
 * with a command line that says `--hook`, a misspelt flag or command included, its error is 1.
 */
export function hookExitCode(argv: readonly string[], code: number): number {
  return code === 2 && argv.some((a) => a === '--hook' || a.startsWith('--hook=')) ? 1 : code;
}

/**
 * The folder whose ./skillsmith.db and ./skillsmith.config.json a command reads: none for a hook. A hook runs in
 * whatever folder the agent works in, a cloned repository included, whose files could point the memory's model at
 * a server of theirs or hand the agent procedures of their own; a hook's memory and configuration come from --db
 * and --config, SKILLSMITH_DB and SKILLSMITH_CONFIG, or the per-user memory.
 */
export function workingFolder(hook: unknown): string | null {
  return hook ? null : process.cwd();
}
