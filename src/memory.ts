/*
 * The library's entry to the application layer (src/app/): the `Memory` facade, the composition root
 * `openMemory`, and the types and errors of its methods.
 */
export { Memory } from './app/memory.js';
export { openMemory, type OpenMemoryOptions } from './app/open-memory.js';
export { DisabledError } from './errors/disabled-error.js';
export type { ExportResult, ImportResult, IngestResult, SessionRecorder } from './app/types.js';
