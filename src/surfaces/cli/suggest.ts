import { nearestName } from '../../support/nearest-name.js';

/**
 * What to say of a command line Node's parser refused. It says of an unknown flag only how to pass it as a
 * positional; a user who typed `--topk` wants to hear about `--top-k`. Other parse errors are said as they are.
 */
export function parseErrorMessage(e: unknown, flags: readonly string[]): string {
  const message = (e as Error).message;
  if ((e as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const typed = /Unknown option '(-{1,2})([^'=]+)/.exec(message);
  if (!typed) return message;
  const [, dashes, name] = typed;
  const guess = nearestName(name, flags);
  return `unknown flag ${dashes}${name}${guess === undefined ? '' : ` (did you mean --${guess}?)`}`;
}
