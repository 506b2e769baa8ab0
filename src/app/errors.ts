/* The errors the application layer throws for a refused operation: members of the one error family (src/errors/). */
export { DisabledError, NotFoundError, PassLockedError, SessionStateError } from '../errors/index.js';
