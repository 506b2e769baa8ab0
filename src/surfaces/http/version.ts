import { readFileSync } from 'node:fs';

/** The package version (package.json sits three levels above both src/surfaces/http and dist/surfaces/http). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
