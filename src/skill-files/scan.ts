import type { SkillFile } from '../store/store.js';

/**
 * Scans imported files without changing them: each line that redaction would rewrite (a secret-looking
 * value) or that carries an instruction to a model is named with its file and line, so a person can check it
 * before promoting or sharing the skill. The files themselves are kept byte for byte.
 */
export interface ScanFinding {
  path: string;
  line: number;
  reason: string;
}

export interface ScanRules {
  redact: (text: string) => string;
  /** Whether a text carries instruction-like sentences (skill bodies re-enter prompts once promoted). */
  hasInstructions?: (text: string) => boolean;
  /** Whether a line carries a destructive or fetch-and-run command (`rm -rf`, `curl … | sh`). */
  risky?: (text: string) => boolean;
}

const MAX_FINDINGS_PER_FILE = 20;

export function scanSkillFiles(files: SkillFile[], rules: ScanRules): ScanFinding[] {
  const out: ScanFinding[] = [];
  for (const f of files) {
    if (!looksLikeText(f.bytes)) continue;
    const lines = f.bytes.toString('utf8').split('\n');
    let n = 0;
    for (let i = 0; i < lines.length && n < MAX_FINDINGS_PER_FILE; i++) {
      const line = lines[i];
      const redacted = rules.redact(line);
      if (redacted !== line) {
        const kinds = [...new Set([...redacted.matchAll(/\[REDACTED:([a-z_-]+)\]/g)].map((m) => m[1]))];
        out.push({
          path: f.path,
          line: i + 1,
          reason: `looks like a secret or personal data (${kinds.join(', ') || 'redactable'}); kept as written`,
        });
        n++;
      } else if (f.path === 'SKILL.md' && rules.risky?.(line)) {
        out.push({
          path: f.path,
          line: i + 1,
          reason:
            'a destructive or fetch-and-run command; kept as written, left out of the copy that can be recalled after promotion',
        });
        n++;
      } else if (f.path === 'SKILL.md' && rules.hasInstructions?.(line)) {
        out.push({
          path: f.path,
          line: i + 1,
          reason:
            'instruction-like text; kept as written, neutralised in the copy that can be recalled after promotion',
        });
        n++;
      }
    }
  }
  return out;
}

function looksLikeText(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8000);
  return !head.includes(0);
}
