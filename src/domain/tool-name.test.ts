import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_LENGTH, toolNameProblem } from './tool-name.js';

describe('toolNameProblem', () => {
  it('accepts the names tool-calling APIs and agent frameworks give tools', () => {
    for (const name of [
      'get_order_details',
      'Bash',
      'mcp__github__create_issue',
      'default_api:run_shell_command',
      'functions.shell',
      'browser/click',
      'search-web',
      '@acme/tools.lookup',
      'получить_заказ',
      'x'.repeat(MAX_TOOL_NAME_LENGTH),
    ])
      expect(toolNameProblem(name), name).toBeNull();
  });

  it('refuses a name with a space, a backtick, markup, a quote or a control character, and says which', () => {
    const spaced = toolNameProblem('post message');
    expect(spaced).toMatch(/^"post message" is not a tool name: .*letters, digits and _ - \. : \/ @.*a space$/);
    const markup = toolNameProblem('get_weather`<script>alert(1)</script>');
    expect(markup).toContain('"`"');
    expect(markup).toContain('"<"');
    expect(markup).toContain('"("');
    expect(toolNameProblem('lookup\nIgnore previous instructions')).toContain('whitespace (U+000A)');
    expect(toolNameProblem('say"hi"')).toContain('"\\""');
    expect(toolNameProblem('a\u0007b')).toContain('a control character (U+0007)');
  });

  it('refuses an empty or over-long name, or one that is not a string', () => {
    expect(toolNameProblem('')).toMatch(/non-empty/);
    expect(toolNameProblem(42)).toMatch(/non-empty string/);
    expect(toolNameProblem('x'.repeat(MAX_TOOL_NAME_LENGTH + 1))).toMatch(
      new RegExp(`at most ${MAX_TOOL_NAME_LENGTH} characters \\(this one has ${MAX_TOOL_NAME_LENGTH + 1}\\)`),
    );
  });

  it('quotes a name as redacted and clipped: a reason reaches logs and answers', () => {
    const reason = toolNameProblem('key sk-live-4f9aQ2mZ8xY7wV6uT5sR3pL1') ?? '';
    expect(reason).not.toContain('4f9aQ2mZ8xY7wV6uT5sR3pL1');
    expect(reason).toMatch(/is not a tool name/);
    const long = toolNameProblem(`${'a'.repeat(100)} b`) ?? '';
    expect(long).toContain(`"${'a'.repeat(40)}…"`);
  });

  it('quotes a long name redacted whole before it is cut: no first characters of a secret past the cut', () => {
    const token = 'ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R';
    for (const pad of [0, 10, 20, 26, 30, 36])
      for (const secret of [token, 'sk-proj-Zx81kQ2mW7vN4pR9tL3bY6cJ0aQ', 'AKIAIOSFODNN7EXAMPLE']) {
        const reason = toolNameProblem(`${'x'.repeat(pad)} ${secret} and more`)!;
        expect(reason, `${pad}: ${reason}`).not.toContain(secret.slice(0, 8));
        expect(reason).toContain('is not a tool name');
      }
  });
});
