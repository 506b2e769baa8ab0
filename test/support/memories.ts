import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach } from 'vitest';
import type { Memory } from '../../src/app/memory.js';
import type { Session } from '../../src/domain/types.js';
import { openMemory, type OpenMemoryOptions } from '../../src/app/open-memory.js';
import { tempDbPath } from './tau.js';

/**
 * Memories a test file opens on fresh SQLite files (no cooldown between passes), closed and removed after each
 * test. `fresh` opens one; `track` hands over one the test opened itself.
 */
export function testMemories(prefix: string) {
  const opened: { memory: Memory; path: string }[] = [];
  afterEach(async () => {
    for (const { memory, path } of opened.splice(0)) {
      await memory.close();
      rmSync(dirname(path), { recursive: true, force: true });
    }
  });
  return {
    async fresh(config: OpenMemoryOptions['config'] = {}): Promise<Memory> {
      const path = tempDbPath(prefix);
      const memory = await openMemory({
        db: path,
        config: { ...config, synthesis: { cooldownMs: 0, ...config?.synthesis } },
        logLevel: 'silent',
      });
      opened.push({ memory, path });
      return memory;
    },
    track(memory: Memory, path: string): Memory {
      opened.push({ memory, path });
      return memory;
    },
  };
}

/** A call of a scripted session: its tool, arguments and result (it succeeded). */
export interface ScriptedCall {
  tool: string;
  args: Record<string, unknown>;
  result: string;
}

/**
 * Successful sessions, one per goal, each making the same calls in order (`prefix-0`, `prefix-1`, ...; a day
 * apart): several runs of one procedure, worded differently.
 */
export function successfulRuns(prefix: string, goals: readonly string[], calls: readonly ScriptedCall[]): Session[] {
  return goals.map((goal, i) => ({
    id: `${prefix}-${i}`,
    namespace: 'default',
    goal,
    outcome: 'success',
    reward: 1,
    agentId: null,
    source: 'scripted-test',
    startedAt: `2026-01-0${i + 1}T00:00:00.000Z`,
    endedAt: null,
    labels: null,
    calls: calls.map((c, position) => ({
      position,
      tool: c.tool,
      args: c.args,
      result: c.result,
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    })),
  }));
}
