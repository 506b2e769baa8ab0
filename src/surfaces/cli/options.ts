import { parseArgs } from 'node:util';
import { UsageError } from '../../errors/index.js';
import { nearestName } from './suggest.js';

/** Every flag the CLI accepts (one parser for all commands: an unknown flag is a usage error, exit 2). */
const options = {
  db: { type: 'string' },
  namespace: { type: 'string' },
  config: { type: 'string' },
  format: { type: 'string' },
  judge: { type: 'string' },
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'top-k': { type: 'string' },
  try: { type: 'string' },
  sessions: { type: 'string' },
  cue: { type: 'string' },
  facts: { type: 'string' },
  commit: { type: 'boolean' },
  session: { type: 'string' },
  // eval
  train: { type: 'string' },
  test: { type: 'string' },
  label: { type: 'string' },
  split: { type: 'string' },
  report: { type: 'string' },
  name: { type: 'string' },
  variants: { type: 'string' },
  limit: { type: 'string' },
  'no-replay': { type: 'boolean' },
  goals: { type: 'string' },
  // serve / mcp
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'require-token': { type: 'boolean' },
  http: { type: 'boolean' },
  details: { type: 'boolean' },
  out: { type: 'string' },
  all: { type: 'boolean' },
  force: { type: 'boolean' },
  'log-level': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw unknownFlagError(e);
  }
}

/**
 * Node's parser says of an unknown flag only how to pass it as a positional; a user who typed `--topk`
 * wants to hear about `--top-k`. Other parse errors pass through as they are.
 */
function unknownFlagError(e: unknown): unknown {
  if ((e as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return e;
  const typed = /Unknown option '(-{1,2})([^'=]+)/.exec((e as Error).message);
  if (!typed) return e;
  const [, dashes, name] = typed;
  const guess = nearestName(name, Object.keys(options));
  const hint = guess === undefined ? '' : ` (did you mean --${guess}?)`;
  return new UsageError(`unknown flag ${dashes}${name}${hint}`);
}

/** The parsed flags, as every command receives them. */
export type Flags = ReturnType<typeof parseCommandLine>['values'];
