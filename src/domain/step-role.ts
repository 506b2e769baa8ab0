/**
 * What each step of a procedure does, from its tool's name: a lookup (get_order_details, search_direct_flight,
 * a computation such as liter_to_gallon), an action that changes something (cancel_pending_order,
 * fillFuelTank), or a hand-off to a person (transfer_to_human_agents). Names and descriptions say the action;
 * clustering weighs the actions over the lookups every procedure of a namespace shares. Pure.
 */

/** Tools an agent reasons with: never steps of a procedure (with PLANNING_TOOLS, the default `synthesis.thinkTools`). */
export const REASONING_TOOLS: readonly string[] = ['think', 'reason', 'reflect', 'scratchpad'];

/**
 * Planning tools of coding agents (Claude Code's `TodoWrite`, Codex's `update_plan`): left out of procedures like
 * reasoning tools, where they would read as the task ("write todo"); but a session that mostly
 * updates its to-do list between a few edits is still work, not a chain-of-thought dump (admit.ts: denyReason).
 */
export const PLANNING_TOOLS: ReadonlySet<string> = new Set(['TodoWrite', 'TodoRead', 'update_plan']);

/** Verbs that name a task. Their order breaks ties: earlier ones are the more specific. */
export const TASK_VERBS = [
  'exchange',
  'return',
  'refund',
  'cancel',
  'book',
  'reschedule',
  'upgrade',
  'downgrade',
  'change',
  'modify',
  'update',
  'transfer',
  'send',
  'schedule',
  'pay',
  'buy',
  'purchase',
  'track',
  'reset',
  'restore',
  'fix',
  'enable',
  'disable',
  'activate',
  'renew',
  'add',
  'remove',
  'delete',
  'clean',
  'clear',
  'create',
  'move',
  'copy',
  'rename',
  'rebase',
  'merge',
  'revert',
  'bump',
  'release',
  'post',
  'share',
  'search',
  'find',
  'compare',
  'check',
  'list',
  'report',
  'calculate',
  'forward',
  'reply',
  'summarise',
  'summarize',
  'plan',
  'open',
] as const;

/**
 * First words of tools that read, look up or compute, or open a session (login): they lead to the action, they
 * are not it.
 */
export const LOOKUP_VERBS = new Set(
  'cd run test get find search list check calculate compute can is has view display show read fetch retrieve lookup query estimate count describe verify validate ls cat grep tail head pwd diff wc du sort think reason reflect login logout authenticate'.split(
    ' ',
  ),
);

/** A hand-off to a person ends a procedure without being its task. */
const HANDOFF = /^(transfer|escalate|handoff|hand|contact)\b.*\b(human|agent|agents|person|operator|support)\b/;

export type StepRole = 'action' | 'handoff' | 'lookup';

/** Shell commands as the verbs they are (those that read stay lookups: search, show, count). */
const COMMAND_VERBS: Readonly<Record<string, readonly string[]>> = {
  grep: ['search', 'file'],
  cat: ['show', 'file'],
  head: ['show', 'file'],
  tail: ['show', 'file'],
  wc: ['count', 'file'],
  cp: ['copy', 'file'],
  mv: ['move', 'file'],
  rm: ['remove', 'file'],
  rmdir: ['remove', 'directory'],
  mkdir: ['create', 'directory'],
  touch: ['create', 'file'],
  echo: ['write', 'file'],
};

/** Verbs of steps that change something, beside the task verbs (set_navigation, fillFuelTank, place_order). */
const ACT_VERBS = new Set(
  'write set fill lock unlock press start stop activate deactivate place post comment mention follow retweet resolve close submit toggle reboot restart resume suspend grant revoke apply assign approve reject invite publish upload write edit insert pay notify alert page drop install uninstall deploy purchase register refuel refill reseat connect disconnect fund withdraw deposit sell subscribe unsubscribe enroll charge make'.split(
    ' ',
  ),
);

/** Roles already worked out, by tool name: a pass asks for the role of every call of every session. */
const ROLES = new Map<string, StepRole>();
const ROLES_LIMIT = 65_536;

/** What a step does: changes something (`action`), hands the user to a person (`handoff`) or reads (`lookup`). */
export function roleOf(tool: string): StepRole {
  let role = ROLES.get(tool);
  if (role === undefined) {
    role = roleOfWords(toolWordsOf(tool));
    if (ROLES.size >= ROLES_LIMIT) ROLES.clear();
    ROLES.set(tool, role);
  }
  return role;
}

function roleOfWords(words: readonly string[]): StepRole {
  if (HANDOFF.test(words.join(' '))) return 'handoff';
  const verb = words[0];
  if (!verb || LOOKUP_VERBS.has(verb)) return 'lookup';
  // A step named by a noun (liter_to_gallon, logarithm) computes something; it is not the action.
  return ACT_VERBS.has(verb) || (TASK_VERBS as readonly string[]).includes(verb) ? 'action' : 'lookup';
}

/** Separators of a tool's module or server from its own name: email.send_email, mcp__github__create_issue. */
const MODULE_SEPARATOR = /\.|__|\//;

/** Any word known to name what a step does. */
export function isVerb(word: string): boolean {
  return LOOKUP_VERBS.has(word) || ACT_VERBS.has(word) || (TASK_VERBS as readonly string[]).includes(word);
}

/**
 * The words of a tool name, verb first: cancel_pending_order, cancelPendingOrder -> cancel, pending, order. A
 * module or server prefix is dropped (calendar.create_event -> create, event), and a name that leads with its
 * object has its verb moved to the front (vault_create_key -> create, vault, key; flights_book -> book,
 * flights): otherwise the object reads as the verb and every step of such a toolset looks like a lookup.
 */
export function toolWordsOf(tool: string): string[] {
  const own = tool.split(MODULE_SEPARATOR).filter((part) => /[a-zA-Z]/.test(part));
  const all = (own[own.length - 1] ?? tool)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^a-zA-Z]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
  // What follows "by" is the lookup's key, not its object (get_customer_by_phone, find_user_id_by_name_zip).
  const by = all.indexOf('by');
  const words = by > 0 ? all.slice(0, by) : all;
  if (words.length === 1 && COMMAND_VERBS[words[0]]) return [...COMMAND_VERBS[words[0]]];
  const verbAt = words.findIndex(isVerb);
  if (verbAt > 0) return [words[verbAt], ...words.slice(0, verbAt), ...words.slice(verbAt + 1)];
  return words;
}

/**
 * The step a procedure leads to: among the steps that act (not lookups, not a hand-off to a person), the one
 * the requests talk about and the namespace rarely sees; a hand-off when nothing else acts; the last step
 * when everything only reads.
 */
export function chooseActionTool(
  toolSequence: readonly string[],
  toolWeight: (tool: string) => number,
  requestShare: (word: string) => number = () => 0,
): string | null {
  const distinct = [...new Set(toolSequence)];
  const acting = distinct.filter((t) => roleOf(t) === 'action');
  if (acting.length) {
    let best = acting[0];
    let bestScore = -Infinity;
    for (const t of acting) {
      const overlap = Math.max(0, ...toolWordsOf(t).map((w) => requestShare(w)));
      const score = (1 + toolWeight(t)) * (1 + 2 * overlap);
      // Later steps win ties: the lookups and preparations come first.
      if (score >= bestScore - 1e-9) {
        best = t;
        bestScore = score;
      }
    }
    return best;
  }
  const handoff = [...distinct].reverse().find((t) => roleOf(t) === 'handoff');
  return handoff ?? toolSequence[toolSequence.length - 1] ?? null;
}
