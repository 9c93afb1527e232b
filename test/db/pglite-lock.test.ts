import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockDataDir } from '../../src/db/pglite';

describe('PGlite data directory lock', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'bff-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = () => path.join(dir, 'pglite');
  const lockFile = () => `${dataDir()}.lock`;

  test('one holder at a time in a process; released on release()', () => {
    const release = lockDataDir(dataDir());
    expect(existsSync(lockFile())).toBe(true);
    expect(() => lockDataDir(dataDir())).toThrow(/already open in this process/);
    release();
    expect(existsSync(lockFile())).toBe(false);
    lockDataDir(dataDir())();
  });

  test('refuses a directory held by another live process on this host', () => {
    writeFileSync(lockFile(), JSON.stringify({ host: os.hostname(), pid: process.ppid }));
    expect(() => lockDataDir(dataDir())).toThrow(new RegExp(`in use by process ${process.ppid}`));
  });

  test('takes over stale locks: dead process, our own pid from a previous run, garbage', () => {
    for (const content of [
      JSON.stringify({ host: os.hostname(), pid: 2 ** 22 + 12345 }),
      JSON.stringify({ host: os.hostname(), pid: process.pid }),
      'garbage',
    ]) {
      writeFileSync(lockFile(), content);
      const release = lockDataDir(dataDir());
      expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual({
        host: os.hostname(),
        pid: process.pid,
      });
      release();
    }
  });
});
