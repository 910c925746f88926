import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './test/temp-dir.js';
import { writeFileAtomicSync, writeNewFileSync } from './write-file-atomic-sync.js';

const MODULE = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'write-file-atomic-sync.js')).href;

/** Runs `call` (a function of the module's exports) in a child process limited to 8 KiB files (`ulimit -f 8`). */
function withFileSizeLimit(call: string): string {
  const script = `const m = await import(${JSON.stringify(MODULE)}); try { ${call}; console.log('ok'); } catch (error) { console.log(error.code); }`;
  // SIGXFSZ ignored: a write past the limit then fails with EFBIG, like a full disk fails with ENOSPC.
  return execFileSync(
    'bash',
    ['-c', `trap '' XFSZ; ulimit -f 8; exec "$0" --input-type=module -e "$1"`, process.execPath, script],
    {
      encoding: 'utf8',
    },
  ).trim();
}

describe('writeNewFileSync (a stage status written in place when it is new)', () => {
  it('writes a file that does not exist yet, and refuses to touch one that does', () => {
    const directory = tempDir();
    const path = join(directory, 'status.json');
    expect(writeNewFileSync(path, '{"outcome":"success"}\n')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"outcome":"success"}\n');
    expect(writeNewFileSync(path, 'second')).toBe(false);
    const flushed = join(directory, 'flushed.json');
    expect(writeNewFileSync(flushed, '{"outcome":"fail"}\n', { fsync: true })).toBe(true);
    expect(readFileSync(flushed, 'utf8')).toBe('{"outcome":"fail"}\n');
    expect(writeNewFileSync(flushed, 'again', { fsync: true })).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{"outcome":"success"}\n');
    expect(() => writeNewFileSync(join(directory, 'missing', 'status.json'), 'x')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });

  it('leaves no file behind when the write fails half-way (file size limit, like a full disk)', () => {
    const directory = tempDir();
    const path = join(directory, 'status.json');
    expect(withFileSizeLimit(`m.writeNewFileSync(${JSON.stringify(path)}, 'x'.repeat(64 * 1024))`)).toBe(
      'EFBIG',
    );
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('writeFileAtomicSync', () => {
  it('keeps the previous file and no temp file when the write fails half-way', () => {
    const directory = tempDir();
    const path = join(directory, 'status.json');
    writeFileSync(path, 'previous');
    expect(withFileSizeLimit(`m.writeFileAtomicSync(${JSON.stringify(path)}, 'x'.repeat(64 * 1024))`)).toBe(
      'EFBIG',
    );
    expect(readFileSync(path, 'utf8')).toBe('previous');
    expect(readdirSync(directory)).toEqual(['status.json']);
    writeFileAtomicSync(path, 'next');
    expect(readFileSync(path, 'utf8')).toBe('next');
  });
});
