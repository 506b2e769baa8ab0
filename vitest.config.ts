import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Builds dist/ when src/ changed: the surface tests launch the built CLI.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A `skillsmith recall` run by a test recalls in its own process: the tests of the recall daemon
    // (test/recall-daemon.test.ts) start it themselves, and no daemon outlives the run.
    env: { SKILLSMITH_RECALL_DAEMON: '0' },
  },
});
