import { describe, expect, it } from 'vitest';
import { agentHooks, hookRole, installHooks, uninstallHooks } from './agent-hooks.js';

const NODE = "'/usr/bin/node' '/home/me/src/skill smith/dist/surfaces/cli/main.js'";

describe('hookRole: which of our hooks a command is', () => {
  it('knows our commands, in every form we wrote or the README showed', () => {
    expect(hookRole("skillsmith recall --hook --tools 'Bash,Read'")).toBe('recall');
    expect(hookRole('skillsmith recall --hook')).toBe('recall');
    expect(hookRole('/usr/local/bin/skillsmith ingest --hook')).toBe('ingest');
    expect(hookRole('npx skillsmith learn --hook')).toBe('learn');
    expect(hookRole(`${NODE} recall --hook --tools 'a,b' --db /x.db`)).toBe('recall');
    expect(hookRole('node /abs/dist/surfaces/cli/main.js learn --hook')).toBe('learn');
    expect(hookRole('skillsmith recall --db "$CLAUDE_PROJECT_DIR/skillsmith.db" --hook')).toBe('recall');
  });

  it("leaves another tool's commands, and ours that are not hooks", () => {
    expect(hookRole('my-linter --fix')).toBeNull();
    expect(hookRole('skillsmith recall "deploy"')).toBeNull();
    expect(hookRole('skillsmith-other recall --hook')).toBeNull();
    expect(hookRole('skillsmith skills list --hook')).toBeNull();
    expect(hookRole('echo skillsmith recall --hook')).toBeNull();
  });
});

describe('installHooks and uninstallHooks', () => {
  const entries = agentHooks('claude-code', 'skillsmith');
  const other = { hooks: [{ type: 'command', command: 'my-linter --check', timeout: 5 }] };
  const settings = { model: 'opus', permissions: { allow: ['Bash(npm test)'] }, hooks: { UserPromptSubmit: [other] } };

  it('adds ours beside every other key and hook, and takes out exactly those again', () => {
    const plan = installHooks(settings, entries, 'settings.json');
    expect(plan.changed).toBe(true);
    expect(plan.added.map((e) => e.event)).toEqual(['UserPromptSubmit', 'Stop', 'SessionEnd']);
    expect(plan.settings).toEqual({
      ...settings,
      hooks: {
        UserPromptSubmit: [other, { hooks: [{ type: 'command', command: entries[0]!.command, timeout: 10 }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'skillsmith ingest --hook', timeout: 30 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: 'skillsmith learn --hook', timeout: 60 }] }],
      },
    });
    // The input is not changed.
    expect(settings.hooks.UserPromptSubmit).toEqual([other]);
    const again = installHooks(plan.settings, entries, 'settings.json');
    expect([again.changed, again.added, again.replaced, again.unchanged.length]).toEqual([false, [], [], 3]);
    const out = uninstallHooks(plan.settings, 'settings.json');
    expect(out.settings).toEqual(settings);
    expect(out.removed).toHaveLength(3);
    // Only ours: an empty `hooks` goes; a settings file with none of ours is not changed.
    expect(uninstallHooks(installHooks({}, entries, 's').settings, 's').settings).toEqual({});
    expect(uninstallHooks(settings, 's').changed).toBe(false);
  });

  it('replaces an older form of ours where it stands, and a second copy of ours goes', () => {
    const old = {
      hooks: {
        UserPromptSubmit: [
          {
            matcher: '',
            hooks: [{ type: 'command', command: 'skillsmith recall --hook', timeout: 5 }, other.hooks[0]],
          },
        ],
        Stop: [
          { hooks: [{ type: 'command', command: 'skillsmith ingest --hook', timeout: 30 }] },
          { hooks: [{ type: 'command', command: 'npx skillsmith ingest --hook', timeout: 30 }] },
        ],
      },
    };
    const plan = installHooks(old, entries, 's');
    expect(plan.replaced.map((e) => [e.event, e.previous.command])).toEqual([
      ['UserPromptSubmit', 'skillsmith recall --hook'],
    ]);
    expect(plan.unchanged.map((e) => e.event)).toEqual(['Stop']);
    expect(plan.removed.map((e) => e.command)).toEqual(['npx skillsmith ingest --hook']);
    expect(plan.added.map((e) => e.event)).toEqual(['SessionEnd']);
    const hooks = plan.settings.hooks as Record<string, unknown[]>;
    expect(hooks.UserPromptSubmit).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: entries[0]!.command, timeout: 10 }, other.hooks[0]] },
    ]);
    expect(hooks.Stop).toHaveLength(1);
  });

  it("keeps the person's own empty events and groups", () => {
    const own = { hooks: { Stop: [{ hooks: [] }], PreToolUse: [{ matcher: 'Bash', hooks: [] }] } };
    const round = uninstallHooks(installHooks(own, entries, 's').settings, 's').settings;
    expect(round).toEqual(own);
  });

  it('refuses settings whose shape it cannot merge into, naming where', () => {
    expect(() => installHooks([], entries, 'f.json')).toThrow(/f\.json: the settings are a list, not a JSON object/);
    expect(() => installHooks({ hooks: [] }, entries, 'f.json')).toThrow(/f\.json: "hooks" is a list/);
    expect(() => uninstallHooks({ hooks: { Stop: 'x' } }, 'f.json')).toThrow(/hooks\.Stop is a string/);
    expect(() => installHooks({ hooks: { Stop: [3] } }, entries, 'f.json')).toThrow(/hooks\.Stop\[0\]/);
    try {
      installHooks({ hooks: 1 }, entries, 'f.json');
    } catch (e) {
      expect((e as { code: string }).code).toBe('CONFIG_INVALID');
    }
  });

  it("Gemini CLI: its events, its tools, timeouts in milliseconds; --tools adds to the agent's own", () => {
    const gemini = agentHooks('gemini', NODE, { flags: ' --db /m.db', extraTools: ['get_order'] });
    expect(gemini.map((e) => [e.event, e.timeout])).toEqual([
      ['BeforeAgent', 10_000],
      ['AfterAgent', 60_000],
    ]);
    expect(gemini[0]!.command).toBe(
      `${NODE} recall --hook --tools 'run_shell_command,read_file,read_many_files,write_file,replace,glob,search_file_content,list_directory,web_fetch,google_web_search,save_memory,get_order' --db /m.db`,
    );
    expect(gemini[1]!.command).toBe(`${NODE} learn --hook --db /m.db`);
    expect(gemini.map((e) => hookRole(e.command))).toEqual(['recall', 'learn']);
  });
});
