import type { ParseOptions } from '../../src/capture/parse-file.js';

/**
 * The options the capture suites parse a log with: a file of any format in the default namespace, records up to 4 MB,
 * results kept to 2,000 characters, 1,000 calls a session, and a fixed time (`over` changes any of them).
 */
export function parseOptions(file: string, now: string, over: Partial<ParseOptions> = {}): ParseOptions {
  return {
    file,
    namespace: 'default',
    format: 'auto',
    maxRecordBytes: 4 * 1024 * 1024,
    resultChars: 2000,
    maxCallsPerSession: 1000,
    now,
    ...over,
  };
}
