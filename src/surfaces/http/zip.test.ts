import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, createZip } from './zip.js';

describe('createZip', () => {
  it('computes the standard CRC-32 check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
  });

  it('writes deflated entries that a reader finds through the end record', () => {
    const zip = createZip([
      { path: 'a-skill/SKILL.md', data: '# A\n'.repeat(50) },
      { path: 'b-skill/SKILL.md', data: 'é ünïcode' },
    ]);
    expect(zip.readUInt32LE(0)).toBe(0x04034b50);
    const end = zip.length - 22;
    expect(zip.readUInt32LE(end)).toBe(0x06054b50);
    expect(zip.readUInt16LE(end + 10)).toBe(2);
    // First entry: local header, then the deflated data.
    const nameLen = zip.readUInt16LE(26);
    expect(zip.subarray(30, 30 + nameLen).toString()).toBe('a-skill/SKILL.md');
    const packed = zip.readUInt32LE(18);
    expect(inflateRawSync(zip.subarray(30 + nameLen, 30 + nameLen + packed)).toString()).toBe('# A\n'.repeat(50));
    expect(zip.readUInt32LE(14)).toBe(crc32(Buffer.from('# A\n'.repeat(50))));
  });

  it('refuses entry paths that could land outside the folder it is unpacked into', () => {
    for (const path of ['../evil/SKILL.md', '/etc/passwd', 'a/../../b', 'a//b', '']) {
      expect(() => createZip([{ path, data: 'x' }]), path).toThrow(/unsafe entry path/);
    }
  });
});
