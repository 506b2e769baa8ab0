import { accessSync, constants } from 'node:fs';

/** Whether this account may read (`'r'`) or write (`'w'`) the file or folder at `path`; false when it is not there. */
export function mayAccess(path: string, how: 'r' | 'w'): boolean {
  try {
    accessSync(path, how === 'r' ? constants.R_OK : constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
