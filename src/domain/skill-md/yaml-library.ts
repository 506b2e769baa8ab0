// The yaml library, loaded on first use. SKILL.md front matter is the only YAML here, and most processes
// never read or write one (a recall, an MCP server answering recalls): importing the library up front cost
// every new process 25-70 ms on the bench machine (73 module files). Loaded through `require`, which is
// synchronous, so the functions using it stay synchronous.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let library: typeof Yaml | undefined;

export function yamlLibrary(): typeof Yaml {
  library ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return library;
}
