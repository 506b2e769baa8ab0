/**
 * Commands that destroy or fetch-and-run, however a text words them: `rm -rf`, `curl … | sh`, `mkfs`, `dd if=`.
 * A learned skill may quote one only when a session of its group ran it (verify.ts); an imported skill's copy
 * that can be recalled carries none. Pure.
 */
const RISKY_COMMAND =
  /\brm\s+-[a-z]*[rf][a-z]*\b[^\n`]*|\b(?:curl|wget)\b[^\n`|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\bmkfs(?:\.\w+)?\b[^\n`]*|\bdd\s+if=[^\n`]*/gi;

/** The risky commands a text holds, as written. */
export function riskyCommands(text: string): string[] {
  return [...text.matchAll(RISKY_COMMAND)].map((m) => m[0].trim());
}

/** The text with each risky command replaced by a note that it was left out. */
export function withoutRiskyCommands(text: string): string {
  return text.replace(RISKY_COMMAND, '[command left out: destructive or fetch-and-run]');
}
