import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import {
  CHECKPOINT_FILE,
  CHECKPOINT_TEMP_FILE,
  createCheckpointFile,
  readCheckpointText,
} from './checkpoint-file.js';

const read = (directory: string) => readFileSync(join(directory, CHECKPOINT_FILE), 'utf8');
const inode = (directory: string) => statSync(join(directory, CHECKPOINT_FILE)).ino;

describe('checkpoint file (docs/architecture.md "Checkpoint": atomic write + rename)', () => {
  it('publishes every write under checkpoint.json, alternating two spare inodes that are never freed', () => {
    const directory = tempDir();
    const file = createCheckpointFile({ directory });
    const inodes = new Set<number>();
    for (let index = 1; index <= 6; index++) {
      const text = JSON.stringify({ step: index, pad: 'x'.repeat(index * 10) });
      file.write(Buffer.from(text));
      expect(read(directory)).toBe(text);
      // checkpoint.json plus the spare's own name: replacing it frees nothing.
      expect(statSync(join(directory, CHECKPOINT_FILE)).nlink).toBe(2);
      inodes.add(inode(directory));
    }
    expect(inodes.size).toBe(2);
    expect(readdirSync(directory).sort()).toEqual([
      '.checkpoint.json.0',
      '.checkpoint.json.1',
      CHECKPOINT_FILE,
    ]);
    file.close();
    expect(readdirSync(directory)).toEqual([CHECKPOINT_FILE]);
    expect(statSync(join(directory, CHECKPOINT_FILE)).nlink).toBe(1);
    expect(JSON.parse(read(directory))).toMatchObject({ step: 6 });
  });

  it('leaves no trailing bytes when a checkpoint is shorter than the one the spare held before', () => {
    const directory = tempDir();
    const file = createCheckpointFile({ directory });
    file.write(Buffer.from(`{"long":"${'y'.repeat(5000)}"}`));
    file.write(Buffer.from('{"other":1}'));
    file.write(Buffer.from('{"short":1}'));
    expect(read(directory)).toBe('{"short":1}');
    // Larger than the reused encoding buffer, with multi-byte characters.
    const large = `{"large":"${'€ü'.repeat(20_000)}"}`;
    file.write(Buffer.from(large));
    file.write(Buffer.from('{"short":2}'));
    file.write(Buffer.from(large));
    expect(read(directory)).toBe(large);
    file.write(Buffer.from('{"short":3}'));
    expect(read(directory)).toBe('{"short":3}');
    file.close();
  });

  it('starts over after close, and replaces the spares an interrupted writer left behind', () => {
    const directory = tempDir();
    const crashed = createCheckpointFile({ directory });
    crashed.write(Buffer.from('{"n":1}'));
    crashed.write(Buffer.from('{"n":2}'));
    // No close(): the process died. A resumed run opens the directory again.
    expect(readCheckpointText(directory)).toEqual({
      path: join(directory, CHECKPOINT_FILE),
      text: '{"n":2}',
    });
    const resumed = createCheckpointFile({ directory });
    resumed.write(Buffer.from('{"n":3}'));
    expect(read(directory)).toBe('{"n":3}');
    resumed.write(Buffer.from('{"n":4}'));
    expect(read(directory)).toBe('{"n":4}');
    resumed.close();
    expect(readdirSync(directory)).toEqual([CHECKPOINT_FILE]);
    resumed.write(Buffer.from('{"n":5}'));
    expect(read(directory)).toBe('{"n":5}');
    resumed.close();
  });

  it('promotes a temp file left alone by a crash on the next write, and drops a stale one', () => {
    const alone = tempDir();
    writeFileSync(join(alone, CHECKPOINT_TEMP_FILE), '{"n":7}');
    expect(readCheckpointText(alone)).toEqual({ path: join(alone, CHECKPOINT_TEMP_FILE), text: '{"n":7}' });
    const first = createCheckpointFile({ directory: alone });
    first.write(Buffer.from('{"n":8}'));
    first.close();
    expect(readdirSync(alone)).toEqual([CHECKPOINT_FILE]);
    expect(read(alone)).toBe('{"n":8}');

    const stale = tempDir();
    writeFileSync(join(stale, CHECKPOINT_FILE), '{"n":1}');
    writeFileSync(join(stale, CHECKPOINT_TEMP_FILE), '{"n":2}');
    expect(readCheckpointText(stale)?.text).toBe('{"n":1}');
    const second = createCheckpointFile({ directory: stale });
    second.write(Buffer.from('{"n":3}'));
    second.close();
    expect(readdirSync(stale)).toEqual([CHECKPOINT_FILE]);
    expect(read(stale)).toBe('{"n":3}');
  });

  it('writes a fresh temp file per checkpoint where hard links are not used', () => {
    const directory = tempDir();
    const file = createCheckpointFile({ directory, hardLinks: false });
    const inodes = new Set<number>();
    for (let index = 1; index <= 3; index++) {
      file.write(Buffer.from(`{"n":${index}}`));
      expect(read(directory)).toBe(`{"n":${index}}`);
      expect(readdirSync(directory)).toEqual([CHECKPOINT_FILE]);
      inodes.add(inode(directory));
    }
    // A new file each time: it is created while the previous checkpoint still exists.
    expect(inodes.size).toBeGreaterThan(1);
    file.close();
  });

  it.each([true, false])('fsyncs file and directory when asked (hard links: %s)', (hardLinks) => {
    const directory = tempDir();
    const file = createCheckpointFile({ directory, fsync: true, hardLinks });
    file.write(Buffer.from('{"a":1}'));
    file.write(Buffer.from('{"a":2}'));
    expect(read(directory)).toBe('{"a":2}');
    file.close();
    expect(readdirSync(directory)).toEqual([CHECKPOINT_FILE]);
  });

  it('reads nothing from a directory without a checkpoint', () => {
    expect(readCheckpointText(tempDir())).toBeUndefined();
  });
});
