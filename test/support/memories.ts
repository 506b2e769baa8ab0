import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach } from 'vitest';
import type { Memory } from '../../src/app/memory.js';
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
