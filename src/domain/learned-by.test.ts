import { describe, expect, it } from 'vitest';
import { learnedByOf, metadataOf, olderDistiller, withoutVersionMarks } from './learned-by.js';

const md = (learnedBy: string, body = 'Do the thing.') =>
  `---\nname: do-thing\ndescription: Does it.\nmetadata:\n  version: 1.0.0\n  learned-by: ${learnedBy}\n---\n\n${body}\n`;

describe('learned-by', () => {
  it('reads the distiller from the frontmatter, quoted or not, and nowhere else', () => {
    expect(learnedByOf(md('heuristic@1'))).toBe('heuristic@1');
    expect(learnedByOf(md('"llm@1:qwen2.5:7b"'))).toBe('llm@1:qwen2.5:7b');
    expect(learnedByOf(md("'llm@2:gpt'"))).toBe('llm@2:gpt');
    // A body line that looks like metadata is text, not provenance.
    expect(learnedByOf('---\nname: x\ndescription: y\n---\n\n  learned-by: heuristic@9\n')).toBeNull();
    expect(learnedByOf('no frontmatter')).toBeNull();
  });

  it('reads the cluster a skill came from the same way (compile, for one compiled from chosen sessions)', () => {
    expect(metadataOf(md('heuristic@1').replace('  version', '  cluster: compile\n  version'), 'cluster')).toBe(
      'compile',
    );
    expect(metadataOf(md('heuristic@1'), 'cluster')).toBeNull();
  });

  it('leaves out the version and edit marks of the metadata, and nothing of the body', () => {
    const edited = md('heuristic@1', '  version: 2 of the config\n  edited-by: a note').replace(
      '  learned-by',
      '  edited-by: cli\n  edited-at: "2026-01-02T00:00:00.000Z"\n  learned-by',
    );
    expect(withoutVersionMarks(edited)).toBe(
      '---\nname: do-thing\ndescription: Does it.\nmetadata:\n  learned-by: heuristic@1\n---\n\n  version: 2 of the config\n  edited-by: a note\n',
    );
    expect(withoutVersionMarks(md('heuristic@1').replace('1.0.0', '1.1.0'))).toBe(
      withoutVersionMarks(md('heuristic@1')),
    );
    expect(withoutVersionMarks('no frontmatter\n  version: 1\n')).toBe('no frontmatter\n  version: 1\n');
  });

  it('calls a skill outdated only when an earlier version of the same distiller, for the same model, wrote it', () => {
    expect(olderDistiller('heuristic@1', 'heuristic@2')).toBe(true);
    expect(olderDistiller('heuristic@2', 'heuristic@2')).toBe(false);
    expect(olderDistiller('heuristic@3', 'heuristic@2')).toBe(false);
    // Another distiller's skill is not rewritten by this one (an LLM's skill is not redone by the heuristic).
    expect(olderDistiller('llm@1:qwen', 'heuristic@2')).toBe(false);
    expect(olderDistiller('heuristic@1', 'llm@2:qwen')).toBe(false);
    // Another model is not an upgrade.
    expect(olderDistiller('llm@1:qwen', 'llm@2:gpt')).toBe(false);
    expect(olderDistiller('llm@1:qwen', 'llm@2:qwen')).toBe(true);
    expect(olderDistiller(null, 'heuristic@2')).toBe(false);
    expect(olderDistiller('hand-written', 'heuristic@2')).toBe(false);
  });
});
