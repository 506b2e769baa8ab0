// Redaction of a whole SKILL.md without breaking it: the YAML frontmatter is redacted value by value (a
// value that changes is re-quoted, so `[REDACTED:email]` can never turn into a YAML list), and the body as
// text. A text without frontmatter (or with YAML that does not parse) is redacted as plain text.

import { yamlLibrary } from './yaml-library.js';
import { splitFrontmatter } from './frontmatter.js';

export function redactSkillMd(text: string, redact: (text: string) => string): string {
  const split = splitFrontmatter(text);
  if (!split.ok) return redact(text);
  const { isScalar, parseDocument, Scalar, visit } = yamlLibrary();
  const doc = parseDocument(split.yaml, { uniqueKeys: true, strict: true, logLevel: 'silent' });
  if (doc.errors.length) return redact(text);
  let changed = false;
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || typeof node.value !== 'string') return;
      const out = redact(node.value);
      if (out !== node.value) {
        node.value = out;
        node.type = Scalar.QUOTE_DOUBLE;
        changed = true;
      }
    },
  });
  const body = redact(split.body);
  if (!changed && body === split.body) return text;
  return `---\n${changed ? doc.toString({ lineWidth: 0, minContentWidth: 0 }) : `${split.yaml}\n`}---\n\n${body}\n`;
}
