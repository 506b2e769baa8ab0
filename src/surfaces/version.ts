import { readFileSync } from 'node:fs';

/** The package version (package.json sits two levels above both src/surfaces and dist/surfaces). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
