/**
 * Steps of tools that run command lines (Claude Code's `Bash`, Codex's `shell` and `exec_command`, a
 * `run_shell`): the tool name says nothing, the command says what the step does. Such a call is told apart
 * from another of the same tool by its command's head (`df`, `systemctl restart`, `git commit`), so that a
 * procedure of three commands keeps three steps, and a step can show the command the sessions ran. Pure.
 */
import { isVerb } from './step-role.js';
import { keepFirst } from '../support/text.js';

/** Tool names of command runners: a whole word of the name says shell, bash, terminal, exec or command. */
const RUNNER = /(^|[_.\-\s])(bash|sh|zsh|shell|terminal|powershell|pwsh|cmd|exec|execute|command)([_.\-\s]|$)/i;

/** Shells whose `-c` / `-lc` argument is the command line itself (Codex: ["bash", "-lc", "npm test"]). */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'fish', 'pwsh', 'powershell']);

/**
 * Programs whose first word after them names what they do (`git commit`, `systemctl restart`, `npm test`):
 * the head keeps it. Any other program is its head alone (`df -h /`, `rg -n x src`).
 */
const SUBCOMMANDS = new Set(
  'git gh hg svn systemctl launchctl docker podman kubectl helm npm pnpm yarn npx bun deno pip pip3 uv poetry conda apt apt-get dnf yum brew snap cargo go rustup make just gradle mvn dotnet terraform aws gcloud az heroku fly vercel supabase rails bundle gem composer mix'.split(
    ' ',
  ),
);

/**
 * The words of what a procedure's commands run, for a name when nothing else gives one: of the command heads
 * (commandHead) in order, the first that is neither setup nor a report (`pg_dump` of `pg_dump`, `ls`, `aws s3`),
 * split into its words (`pg`, `dump`). Empty when every command only sets up or shows.
 */
export function programWords(heads: readonly (string | null)[]): string[] {
  const head = heads.find((h) => !!h && !SETUP.test(h.split(' ')[0]) && !REPORT.test(h));
  return head
    ? head
        .toLowerCase()
        .split(/[\s_./-]+/)
        .filter((w) => /^[a-z][a-z0-9]*$/.test(w))
    : [];
}

/** What a program's subcommands act on, to name a step whose operand varies (`systemctl restart X`). */
const ACTS_ON: Readonly<Record<string, string>> = {
  systemctl: 'service',
  service: 'service',
  launchctl: 'service',
  docker: 'container',
  podman: 'container',
  apt: 'package',
  'apt-get': 'package',
  dnf: 'package',
  yum: 'package',
  brew: 'package',
  snap: 'package',
  pip: 'package',
  pip3: 'package',
  npm: 'package',
  pnpm: 'package',
  yarn: 'package',
  cargo: 'package',
  gem: 'package',
  helm: 'release',
};

/** What a package manager does to a package; its other subcommands (`test`, `run`, `audit`) act on no package. */
const PACKAGE_VERBS = new Set(['install', 'add', 'remove', 'uninstall', 'update', 'upgrade', 'purge', 'reinstall']);

/** Does this subcommand of the program act on what the program acts on (ACTS_ON)? */
const actsOnIt = (program: string, verb: string): boolean => ACTS_ON[program] !== 'package' || PACKAGE_VERBS.has(verb);

/** Tool names that run command lines (Bash, shell, exec_command, run_shell, runTerminalCommand). */
export function isCommandRunner(tool: string): boolean {
  return RUNNER.test(tool.replace(/([a-z])([A-Z])/g, '$1_$2'));
}

/** Longest command text a step shows. */
const MAX_COMMAND = 160;

/**
 * The command line a call runs, when its tool runs commands and its arguments hold one (`command` or `cmd`, a line
 * or an argv; the Agents SDK's `commands`, lines run in turn); else null.
 */
export function commandOf(call: { tool: string; args?: Record<string, unknown> | null }): string | null {
  if (!isCommandRunner(call.tool)) return null;
  const raw = call.args?.command ?? call.args?.cmd;
  const list = call.args?.commands;
  let text: string | null = null;
  if (typeof raw === 'string') text = raw;
  // The JavaScript Agents SDK's shell call runs a list of command lines, one after another.
  else if (raw === undefined && Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string'))
    text = list.join('; ');
  else if (Array.isArray(raw) && raw.length > 0 && raw.every((x) => typeof x === 'string')) {
    const argv = raw as string[];
    const base = argv[0].split('/').pop() ?? '';
    // A shell wrapper: the command line is the argument after -c / -lc.
    const flag = argv.findIndex((a, i) => i > 0 && /^-[a-z]*c$/.test(a));
    text = SHELLS.has(base) && flag > 0 && argv[flag + 1] !== undefined ? argv[flag + 1] : argv.join(' ');
  }
  const trimmed = text?.trim().replace(/\s+/g, ' ');
  return trimmed ? trimmed : null;
}

/**
 * Commands of a chain that prepare or report, not what the chain is for: a `cd`, an `export`, a `source`, an
 * `echo` of what was done, a `true` that hides a failure.
 */
const SETUP = /^(?:cd|pushd|export|set|source|\.|echo|printf|true|:|sleep|clear)$/;

/** Commands that only show something: a chain that changes something and then shows it is the change. */
const REPORT =
  /^(?:cat|head|tail|less|more|grep|egrep|fgrep|rg|ag|ls|tree|wc|pwd|which|stat|file|git (?:status|diff|log|show))$/;

/**
 * What a command line does, in one or two words: its program (path and `sudo`, environment assignments left
 * out) and, for programs with subcommands, the subcommand. `service NAME restart` reads `service restart`. Of a
 * chain, the last command that runs when all goes well (after `&&` or `;`, not a fallback after `||`) and is
 * neither setup (SETUP) nor a look at what was done (REPORT): `git add -A && git commit -m x` reads `git commit`,
 * as `git commit -am x` does, `sed -i ... && grep -n flask requirements.txt` reads `sed -i`, and
 * `cd /srv && make build || echo failed` reads `make build`. `sed -i`, which edits a file, is not `sed`, which
 * prints one.
 */
export function commandHead(command: string): string {
  const parts = chainParts(command)
    .filter((p) => p.after !== '||' && p.text.trim() !== '')
    .map((p) => p.text);
  const kept = parts.filter((p) => !SETUP.test(simpleCommand(p).program));
  const chosen =
    [...kept].reverse().find((p) => !REPORT.test(headOf(simpleCommand(p)))) ?? kept.at(-1) ?? parts[0] ?? command;
  return headOf(simpleCommand(chosen));
}

/** Heads that run a script named by the next word: the head alone says nothing of what runs. */
const SCRIPT_RUNNER = /^(?:(?:npm|pnpm|yarn|bun) run|make|just|task)$/;

/**
 * A command as a skill's description says it: its head (`git diff`, `gh run list`), with the script a runner runs
 * (`npm run lint`, `make build`) when that is a plain word. Never its other arguments: paths, messages, values.
 */
export function commandPhrase(command: string): string {
  const head = commandHead(command);
  if (!SCRIPT_RUNNER.test(head)) return head;
  const parts = head.split(' ');
  const words = command.trim().split(/\s+/);
  const at = words.findIndex((_, i) => parts.every((p, k) => words[i + k] === p));
  const script = at < 0 ? undefined : words.slice(at + parts.length).find((w) => !w.startsWith('-'));
  return script && /^[a-z][a-z0-9:_-]{0,30}$/.test(script) ? `${head} ${script}` : head;
}

/** The head of one simple command (commandHead). */
function headOf({ words, at: i, program }: { words: string[]; at: number; program: string }): string {
  if (!program) return '';
  const plain = (w: string | undefined) => (w && /^[a-z][a-z0-9-]*$/.test(w) ? w : null);
  if (program === 'service') {
    const verb = plain(words[i + 2]);
    return verb ? `service ${verb}` : program;
  }
  // An in-place edit is not a print: `sed -i` changes a file, `sed -n 1,80p` reads one.
  if (program === 'sed' && words.slice(i + 1).some((w) => /^(?:-[a-zA-Z]*i|--in-place)/.test(w))) return 'sed -i';
  const sub = SUBCOMMANDS.has(program) ? plain(words[i + 1]) : null;
  // A noun, then what is done to it: `gh run list` and `gh run view` are two steps, not one `gh run` done twice.
  const verb = sub && NOUN_VERB.has(program) ? plain(words[i + 2]) : null;
  return verb ? `${program} ${sub} ${verb}` : sub ? `${program} ${sub}` : program;
}

/** Programs whose subcommand names a thing and the word after it what is done to it (`gh pr create`). */
const NOUN_VERB = new Set(['gh']);

/**
 * The commands of a chain, each with the operator before it (`&&`, `||`, `;`, or null for the first): split
 * only outside quotes, so `git commit -m "a; b"` is one command.
 */
function chainParts(command: string): { text: string; after: string | null }[] {
  return splitOutsideQuotes(command, (c, next) =>
    c === ';' ? ';' : (c === '&' || c === '|') && next === c ? c + c : null,
  );
}

/**
 * A command line cut at the operators `operatorAt` finds (given a character and the one after it, the operator
 * starting there, or null), outside quotes and escapes; each piece with the operator before it.
 */
function splitOutsideQuotes(
  command: string,
  operatorAt: (c: string, next: string | undefined) => string | null,
): { text: string; after: string | null }[] {
  const parts: { text: string; after: string | null }[] = [];
  let quote: string | null = null;
  let after: string | null = null;
  let start = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '\\') i++;
    else {
      const op = operatorAt(c, command[i + 1]);
      if (!op) continue;
      parts.push({ text: command.slice(start, i), after });
      after = op;
      i += op.length - 1;
      start = i + 1;
    }
  }
  parts.push({ text: command.slice(start), after });
  return parts;
}

/**
 * A simple command's words, and the program it runs (past `sudo`, `env` and environment assignments, without
 * its path, lower case) with its place among them.
 */
function simpleCommand(command: string): { words: string[]; at: number; program: string } {
  const words = command.trim().split(/\s+/);
  let at = 0;
  while (
    at < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]) || words[at] === 'sudo' || words[at] === 'env')
  )
    at++;
  return { words, at, program: (words[at] ?? '').split('/').pop()?.toLowerCase() ?? '' };
}

/** The key a call aligns on in a procedure: its tool, and for a command line also the command's head. */
export function stepKey(call: { tool: string; args?: Record<string, unknown> | null }): string {
  const command = commandOf(call);
  return commandKey(call.tool, command === null ? '' : commandHead(command));
}

/**
 * Commands whose exit status 1 is their answer, not a failure: a search that finds nothing (`grep`, `rg`, `git
 * grep`, `pgrep`), a comparison that finds a difference (`diff`, `cmp`, `git diff`), a test that is false
 * (`test`, `[`), a lookup that finds no program (`which`), a package check that finds something outdated
 * (`npm outdated`). A coding agent's log marks such a run an error all the same (Claude Code's `is_error`, Codex's
 * exit code); read as one, it would teach "do not run `npm outdated`" or drop the search from a procedure.
 */
const ANSWERS_BY_EXIT = new Set([
  'grep',
  'egrep',
  'fgrep',
  'zgrep',
  'rg',
  'ag',
  'ack',
  'pgrep',
  'git grep',
  'diff',
  'cmp',
  'git diff',
  'test',
  '[',
  '[[',
  'which',
  'npm outdated',
  'pnpm outdated',
  'yarn outdated',
]);

/**
 * The command whose answer a line's exit `code` was, rather than a failure: code 1 from a command of ANSWERS_BY_EXIT
 * that decides the line's status (the last of its chain, and of that command's pipe: `ps aux | grep node` is
 * `grep`'s status, `grep -c x f | head` is `head`'s), as its head (`grep`, `npm outdated`); else null.
 */
export function exitAnswer(command: string, code: number): string | null {
  if (code !== 1) return null;
  const last = chainParts(command)
    .map((p) => p.text)
    .filter((t) => t.trim() !== '')
    .at(-1);
  const piped = last === undefined ? undefined : pipeParts(last).at(-1);
  const head = piped === undefined ? '' : headOf(simpleCommand(piped));
  return ANSWERS_BY_EXIT.has(head) ? head : null;
}

/** An exit status a log wrote in text: Claude Code's "Exit code 1", Codex's "Exit code: 1" or "exit code 1: ...". */
const EXIT_LINE = /^(?:exit code|process exited with code):?\s*(-?\d+)/im;

/** An exit status written as JSON: Codex's `{"output", "metadata": {"exit_code"}}`. */
const EXIT_JSON = /^\s*\{[\s\S]*"exit_code"\s*:\s*(-?\d+)/;

/**
 * The command that answered, when a call its log marked failed ran one whose exit status was its answer
 * (exitAnswer), read from the exit status the log wrote in its error or its result; else null. A failed call with
 * no exit status in sight stays failed.
 */
export function answeredByExit(call: {
  tool: string;
  args?: Record<string, unknown> | null;
  ok: boolean;
  error?: string | null;
  result?: string | null;
}): string | null {
  if (call.ok) return null;
  const command = commandOf(call);
  if (command === null) return null;
  for (const text of [call.error, call.result]) {
    const m = text ? (EXIT_LINE.exec(text) ?? EXIT_JSON.exec(text)) : null;
    if (m) return exitAnswer(command, Number(m[1]));
  }
  return null;
}

/** The commands of a pipe (`a | b`) of one command of a chain (chainParts: no `||` left), split outside quotes. */
function pipeParts(command: string): string[] {
  return splitOutsideQuotes(command, (c) => (c === '|' ? '|' : null))
    .map((p) => p.text)
    .filter((t) => t.trim() !== '');
}

/** A step key from its tool and its command's head (none: the tool alone). */
function commandKey(tool: string, head: string): string {
  return head ? `${tool}\u0000${head}` : tool;
}

/** A step key's tool, and its command's head when it has one (`Bash` + `npm install`). */
export function splitStepKey(key: string): { tool: string; command?: string } {
  const [tool, command] = key.split('\u0000');
  return command === undefined ? { tool } : { tool, command };
}

/** Longest output a step quotes as what its command printed. */
const MAX_OUTPUT = 40;

/**
 * What a command printed every time (at least 80% of its runs, and two): one short line such as `active`;
 * null when the outputs differ, are long or empty.
 */
export function constantOutput(outputs: readonly string[]): string | null {
  const lines = outputs.map((o) => o.trim());
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  const [line, n] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
  if (!line || line.length > MAX_OUTPUT || line.includes('\n') || n < 2 || n < lines.length * 0.8) return null;
  return line;
}

/**
 * The command a step shows: the command line most of its calls ran, when at least half of them ran that
 * exact line and more than one did, or it is the only call (`exact`); otherwise the most common one, as an
 * example: of two runs that differ (`git commit -am "release 1.4.1"`, `git commit -m "release 1.3.0"`), neither
 * is the step's command. Cut to a readable length.
 */
export function representativeCommand(commands: readonly string[]): { text: string; exact: boolean } | null {
  if (commands.length === 0) return null;
  const counts = new Map<string, number>();
  for (const c of commands) counts.set(c, (counts.get(c) ?? 0) + 1);
  const [text, n] = [...counts].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || a[0].localeCompare(b[0]))[0];
  const cut = text.length > MAX_COMMAND ? `${keepFirst(text, MAX_COMMAND - 1)}…` : text;
  return { text: cut, exact: n * 2 >= commands.length && (n >= 2 || commands.length === 1) };
}

/**
 * A tool name that says what a command step does, for naming a procedure: the subcommand when it is a verb,
 * with its first operand when every session ran that very line (`systemctl restart nginx` -> `restart_nginx`);
 * null when the command names no act (`df -h`, `git status`): the step then reads as its tool.
 */
export function commandAsToolName(command: { text: string; exact: boolean }): string | null {
  const head = commandHead(command.text);
  const [program, sub] = head.split(' ');
  const verb = program === 'service' || SUBCOMMANDS.has(program) ? sub : undefined;
  if (!verb || !isVerb(verb)) return null;
  // Different lines (restart nginx, restart caddy): what such a program acts on, when the verb acts on it (a
  // package manager's `install`, not its `test` or `run`).
  if (!command.exact) return ACTS_ON[program] && actsOnIt(program, verb) ? `${verb}_${ACTS_ON[program]}` : verb;
  const words = command.text.split(/\s+/);
  const at = words.indexOf(verb);
  const operand = words.slice(at + 1).find((w) => !w.startsWith('-'));
  return operand && /^[A-Za-z][A-Za-z0-9_.-]*$/.test(operand) ? `${verb}_${operand}` : verb;
}

/** A step line of a SKILL.md that runs a command: "3. Run `df -h /` with ..." or "3. Run a `make` command with ...". */
const RUN_STEP = /^\s*\d+\.\s+Run (a )?(`+)\s?(.+?)\s?\2/;

/**
 * A procedure as the keys its steps align on (stepKey): its tool sequence, where each command runner's step
 * takes the head of the command its SKILL.md body shows for it, in order (a step "only when" something is
 * not in the sequence and is skipped). What tells two shell procedures apart when both are `run_shell` x3.
 */
export function stepKeysOf(toolSequence: readonly string[], body: string): string[] {
  if (!toolSequence.some(isCommandRunner)) return [...toolSequence];
  const heads = body
    .split('\n')
    .filter((line) => !line.includes('(only when'))
    .flatMap((line) => {
      const m = RUN_STEP.exec(line);
      if (!m) return [];
      return [m[1] ? m[3] : commandHead(m[3])];
    });
  let next = 0;
  return toolSequence.map((t) => (isCommandRunner(t) && next < heads.length ? commandKey(t, heads[next++]) : t));
}
