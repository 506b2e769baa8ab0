import { describe, expect, it } from 'vitest';
import {
  commandPhrase,
  commandAsToolName,
  commandHead,
  commandOf,
  constantOutput,
  answeredByExit,
  exitAnswer,
  representativeCommand,
  stepKey,
  stepKeysOf,
} from './commands.js';

describe('commandOf', () => {
  it('reads the command line of the runners agents use today', () => {
    expect(commandOf({ tool: 'Bash', args: { command: 'npm test -- cart', description: 'Run tests' } })).toBe(
      'npm test -- cart',
    );
    expect(commandOf({ tool: 'exec_command', args: { cmd: 'rg -n taxRate src', workdir: '/w' } })).toBe(
      'rg -n taxRate src',
    );
    expect(commandOf({ tool: 'run_shell', args: { command: '  df  -h /' } })).toBe('df -h /');
    expect(commandOf({ tool: 'shell', args: { commands: ['cd web', 'npm outdated'], timeoutMs: 60000 } })).toBe(
      'cd web; npm outdated',
    );
    // Codex's argv form: a `bash -lc` wrapper is unwrapped; a plain argv is joined.
    expect(commandOf({ tool: 'shell', args: { command: ['bash', '-lc', 'git status'] } })).toBe('git status');
    expect(commandOf({ tool: 'shell', args: { command: ['ls', '-la'] } })).toBe('ls -la');
    expect(commandOf({ tool: 'runTerminalCommand', args: { command: 'make' } })).toBe('make');
  });

  it('is null for tools that do not run commands, or hold no command', () => {
    expect(commandOf({ tool: 'cancel_pending_order', args: { command: 'x' } })).toBeNull();
    expect(commandOf({ tool: 'share_tweet', args: { command: 'x' } })).toBeNull();
    expect(commandOf({ tool: 'Bash', args: { description: 'no command' } })).toBeNull();
    expect(commandOf({ tool: 'Bash', args: { command: '   ' } })).toBeNull();
    expect(commandOf({ tool: 'Bash', args: null })).toBeNull();
    expect(commandOf({ tool: 'shell', args: { command: [1, 2] } })).toBeNull();
  });
});

describe('commandHead', () => {
  it('is the program, and the subcommand of programs that have them', () => {
    expect(commandHead('df -h /')).toBe('df');
    expect(commandHead('du -sh /var/log/* | sort -h | tail')).toBe('du');
    expect(commandHead('systemctl restart nginx')).toBe('systemctl restart');
    // GitHub's CLI: a noun, then the verb; what it is done to (a run id, a flag) is no part of the head.
    expect(commandHead('gh run list --branch main --limit 5')).toBe('gh run list');
    expect(commandHead('gh run view 19283746501 --log-failed')).toBe('gh run view');
    expect(commandHead('gh api repos/sam/tally/actions/runs')).toBe('gh api');
    expect(commandHead('git commit -m "fix"')).toBe('git commit');
    expect(commandHead('npm test -- cart')).toBe('npm test');
    expect(commandHead('git -C repo status')).toBe('git');
    expect(commandHead('service nginx restart')).toBe('service restart');
    // A file operand is not a subcommand.
    expect(commandHead('cat README')).toBe('cat');
    // sed that edits in place is another step than sed that prints.
    expect(commandHead("sed -n '1,80p' app/routes.py")).toBe('sed');
    expect(commandHead("sed -i.bak 's/a/b/' x.txt")).toBe('sed -i');
    expect(commandHead("sed --in-place 's/a/b/' x.txt")).toBe('sed -i');
  });

  it('reads past sudo, environment assignments, paths and a leading cd', () => {
    expect(commandHead('sudo systemctl restart nginx')).toBe('systemctl restart');
    expect(commandHead('CI=1 NODE_ENV=test npm run build')).toBe('npm run');
    expect(commandHead('/usr/bin/journalctl -u nginx -n 50')).toBe('journalctl');
    expect(commandHead('cd /srv/app && make build')).toBe('make build');
    expect(commandHead('cd /srv/app')).toBe('cd');
    expect(commandHead('')).toBe('');
  });

  it('reads a chain by the last command it runs when all goes well, not its setup, report or fallback', () => {
    // One commit, however the agent chained it: as `git commit -am` reads.
    expect(commandHead('git add package.json CHANGELOG.md && git commit -m "chore: release 1.3.0"')).toBe('git commit');
    expect(commandHead('source .venv/bin/activate && pytest -q')).toBe('pytest');
    expect(commandHead('export NODE_ENV=test; npm test')).toBe('npm test');
    expect(commandHead('mkdir -p out && tar xzf build.tgz -C out && echo unpacked')).toBe('tar');
    expect(commandHead('cd /srv/app && make build || echo "build failed"')).toBe('make build');
    expect(commandHead('npm test || true')).toBe('npm test');
    // A change, then a look at it: the change.
    expect(commandHead("sed -i 's/^flask==.*/flask==3.1.2/' requirements.txt && grep -n flask requirements.txt")).toBe(
      'sed -i',
    );
    expect(commandHead('git add -A && git commit -m x && git status')).toBe('git commit');
    expect(commandHead('ls && cat README.md')).toBe('cat');
    expect(commandHead('echo hello')).toBe('echo');
    // Separators inside quotes are the command's text.
    expect(commandHead('git commit -m "fix: a; b && c"')).toBe('git commit');
    expect(commandHead("grep -n 'a || b' src/x.ts")).toBe('grep');
  });
});

describe('commandPhrase', () => {
  it('says a command by its head, and a script runner by the script it runs, never by other arguments', () => {
    expect(commandPhrase('git diff --stat package.json package-lock.json')).toBe('git diff');
    expect(commandPhrase('gh run view 9931 --log-failed')).toBe('gh run view');
    expect(commandPhrase('npm run lint -- --fix')).toBe('npm run lint');
    expect(commandPhrase('cd web && pnpm run build:prod')).toBe('pnpm run build:prod');
    expect(commandPhrase('make -j4 test')).toBe('make test');
    expect(commandPhrase('npm run "$SCRIPT"')).toBe('npm run');
    expect(commandPhrase('make')).toBe('make');
  });
});

describe('stepKey', () => {
  it('tells apart calls of one runner by what they run, and leaves other tools as they are', () => {
    const df = stepKey({ tool: 'run_shell', args: { command: 'df -h /' } });
    const restart = stepKey({ tool: 'run_shell', args: { command: 'systemctl restart nginx' } });
    expect(df).not.toBe(restart);
    expect(stepKey({ tool: 'run_shell', args: { command: 'df -i' } })).toBe(df);
    expect(stepKey({ tool: 'get_order_details', args: { order_id: '#W1' } })).toBe('get_order_details');
  });
});

describe('representativeCommand', () => {
  it('is exact when at least half ran the same line, else an example', () => {
    expect(representativeCommand(['df -h /', 'df -h /', 'df -h /home'])).toEqual({ text: 'df -h /', exact: true });
    expect(representativeCommand(['systemctl restart a', 'systemctl restart b', 'systemctl restart c'])).toEqual({
      text: 'systemctl restart a',
      exact: false,
    });
    // Two runs that differ: neither line is the step's command, however the tie is broken.
    expect(representativeCommand(['git commit -am "release 1.4.1"', 'git commit -m "release 1.3.0"'])).toEqual({
      text: 'git commit -m "release 1.3.0"',
      exact: false,
    });
    expect(representativeCommand(['npm test', 'npm test'])).toEqual({ text: 'npm test', exact: true });
    expect(representativeCommand(['make'])).toEqual({ text: 'make', exact: true });
    expect(representativeCommand([])).toBeNull();
    expect(representativeCommand(['x'.repeat(500)])!.text).toHaveLength(160);
  });
});

describe('commandAsToolName', () => {
  it('names a step by the act its command performs, with the operand only when every session ran that line', () => {
    expect(commandAsToolName({ text: 'systemctl restart nginx', exact: true })).toBe('restart_nginx');
    // Lines that differ: what the program acts on, when known, else the verb alone.
    expect(commandAsToolName({ text: 'systemctl restart nginx', exact: false })).toBe('restart_service');
    expect(commandAsToolName({ text: 'make install', exact: false })).toBe('install');
    // A package manager acts on a package when it installs one, not when it runs the tests.
    expect(commandAsToolName({ text: 'npm install zod@latest', exact: false })).toBe('install_package');
    expect(commandAsToolName({ text: 'npm test -- currency', exact: false })).toBe('test');
    expect(commandAsToolName({ text: 'git push origin main', exact: true })).toBeNull();
    expect(commandAsToolName({ text: 'df -h /', exact: true })).toBeNull();
    expect(commandAsToolName({ text: 'git status', exact: true })).toBeNull();
  });
});

describe('stepKeysOf', () => {
  it('reads the commands of a stored procedure back from its steps, in order', () => {
    const body = [
      '## Steps',
      '',
      '1. Run `df -h /` with `run_shell`.',
      '2. Call `notify` with `text` from the user.',
      '3. Run a `systemctl restart` command with `run_shell`, as the case needs (the sessions ran, for example, `systemctl restart a`).',
      '4. Run `rm -rf /tmp/x` with `run_shell` (only when needed: seen in 30% of successful sessions).',
    ].join('\n');
    expect(stepKeysOf(['run_shell', 'notify', 'run_shell'], body)).toEqual([
      'run_shell\u0000df',
      'notify',
      'run_shell\u0000systemctl restart',
    ]);
    // A command with backticks in it is fenced with two.
    expect(stepKeysOf(['Bash'], '1. Run `` echo `date` `` with `Bash`.')).toEqual(['Bash\u0000echo']);
    expect(stepKeysOf(['get_user', 'cancel'], 'anything')).toEqual(['get_user', 'cancel']);
  });
});

describe('constantOutput', () => {
  it('is the short line a command printed every time, else null', () => {
    expect(constantOutput(['active\n', 'active', ' active'])).toBe('active');
    expect(constantOutput(['active', 'active', 'active', 'active', 'failed'])).toBe('active');
    expect(constantOutput(['active', 'active', 'failed'])).toBeNull();
    expect(constantOutput(['active'])).toBeNull();
    expect(constantOutput(['', ''])).toBeNull();
    expect(constantOutput(['a\nb', 'a\nb'])).toBeNull();
    expect(constantOutput(['x'.repeat(41), 'x'.repeat(41)])).toBeNull();
    expect(constantOutput([])).toBeNull();
  });
});

describe('exitAnswer', () => {
  it('reads exit status 1 of a search, a comparison, a test or an outdated check as its answer', () => {
    for (const [command, head] of [
      ['grep -rn "formatUser" src', 'grep'],
      ['rg -n taxRate src', 'rg'],
      ['git grep -n TODO', 'git grep'],
      ['diff -u old.txt new.txt', 'diff'],
      ['git diff --exit-code', 'git diff'],
      ['test -f dist/index.js', 'test'],
      ['[ -d node_modules ]', '['],
      ['which pnpm', 'which'],
      ['npm outdated', 'npm outdated'],
      ['cd web && pnpm outdated', 'pnpm outdated'],
      // The command that answered, not the line's first: `ps` printed, `grep` decided the status.
      ['ps aux | grep node', 'grep'],
      ['sudo grep -c error /var/log/app.log', 'grep'],
    ])
      expect(exitAnswer(command, 1), command).toBe(head);
  });

  it('a failure is still one: another status, another command, or a command that does not decide the status', () => {
    expect(exitAnswer('grep -rn x src', 2)).toBeNull(); // grep: 2 is trouble (no such file)
    expect(exitAnswer('diff a b', 2)).toBeNull();
    expect(exitAnswer('npm test', 1)).toBeNull();
    expect(exitAnswer('npm run lint', 1)).toBeNull();
    expect(exitAnswer('cargo test', 101)).toBeNull();
    // The last command of a chain, and of its pipe, decides the status.
    expect(exitAnswer('grep -q x f && npm run build', 1)).toBeNull();
    expect(exitAnswer('grep -rn x src | wc -l', 1)).toBeNull();
    // A quoted bar is no pipe: the command is sh, not grep.
    expect(exitAnswer('sh -c "make | grep error"', 1)).toBeNull();
  });
});

describe('answeredByExit', () => {
  it('reads the exit status a log wrote: Claude Code, Codex (text and JSON) and the Agents SDK', () => {
    const call = (command: string, error: string, result = error) => ({
      tool: 'Bash',
      args: { command },
      ok: false,
      error,
      result,
    });
    expect(answeredByExit(call('grep -rn "oldName" src', 'Exit code 1'))).toBe('grep');
    expect(answeredByExit(call('npm outdated', 'Exit code 1\nPackage  Current  Wanted  Latest'))).toBe('npm outdated');
    expect(answeredByExit(call('npm run build', 'Exit code 1\nError: Module not found'))).toBeNull();
    expect(
      answeredByExit({
        tool: 'exec_command',
        args: { cmd: 'rg -n "taxRate" src' },
        ok: false,
        error: 'exit code 1:',
        result: '{"output": "", "metadata": {"exit_code": 1}}',
      }),
    ).toBe('rg');
    expect(
      answeredByExit({
        tool: 'shell',
        args: { command: ['bash', '-lc', 'diff -u a.json b.json'] },
        ok: false,
        error: null,
        result: '{"output": "--- a.json", "metadata": {"exit_code": 1}}',
      }),
    ).toBe('diff');
  });

  it('leaves alone a call that succeeded, a call of another tool, and a failure with no exit status in sight', () => {
    expect(answeredByExit({ tool: 'Bash', args: { command: 'grep x f' }, ok: true, result: '' })).toBeNull();
    expect(answeredByExit({ tool: 'Grep', args: { pattern: 'x' }, ok: false, error: 'Exit code 1' })).toBeNull();
    expect(answeredByExit({ tool: 'Bash', args: { command: 'grep x f' }, ok: false, error: 'timed out' })).toBeNull();
  });
});
