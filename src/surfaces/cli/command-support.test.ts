import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { memoryFlagsText } from './command-support.js';
import { shellWord } from './output.js';

describe('memoryFlagsText', () => {
  it('repeats the memory flags given, in a fixed order, and none that were not', () => {
    expect(memoryFlagsText({})).toBe('');
    expect(memoryFlagsText({ namespace: 'team-a', db: '/srv/memory.db' })).toBe(
      ' --db /srv/memory.db --namespace team-a',
    );
    expect(memoryFlagsText({ config: './skillsmith.config.json' })).toBe(' --config ./skillsmith.config.json');
  });

  it('leaves out the password of a PostgreSQL URL: the printed line runs as pasted once PGPASSWORD holds it', () => {
    expect(memoryFlagsText({ db: 'postgres://fleet:fleetpw@127.0.0.1:5432/mem' })).toBe(
      ' --db postgres://fleet@127.0.0.1:5432/mem',
    );
    expect(memoryFlagsText({ db: 'postgres://fleet@h/mem?sslmode=require&password=fleetpw' })).toBe(
      " --db 'postgres://fleet@h/mem?sslmode=require'",
    );
    expect(memoryFlagsText({ db: 'postgres://app:p@ss w/rd@h/mem' })).toBe(' --db postgres://app@h/mem');
  });

  it('quotes a value a shell would split or expand, so the printed command reads it back whole', () => {
    const db = "/tmp/my memory's $HOME;rm.db";
    const text = memoryFlagsText({ db });
    // What a POSIX shell makes of it: the same two words.
    const r = spawnSync('sh', ['-c', `printf '%s\\n' ${text}`], { encoding: 'utf8' });
    expect(r.stdout).toBe(`--db\n${db}\n`);
  });
});

describe('shellWord', () => {
  it('leaves a plain id as it is and quotes one a shell would read otherwise', () => {
    expect(shellWord('claude-code:3b0f6a1e#2,up-zod')).toBe('claude-code:3b0f6a1e#2,up-zod');
    for (const v of ['#start', 'a b', "it's", '$(rm -rf ~)', 'x;y'])
      expect(spawnSync('sh', ['-c', `printf '%s' ${shellWord(v)}`], { encoding: 'utf8' }).stdout).toBe(v);
  });
});
