import { mkdir, mkdtemp, readFile, realpath, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathOutsideWorkdirError } from './errors/path-outside-workdir-error.js';
import {
  editWorkdirFile,
  globWorkdir,
  grepWorkdir,
  readProjectInstructions,
  readWorkdirFile,
  resolveInWorkdir,
  writeWorkdirFile,
} from './workdir-files.js';

/** A temp root with `work/` (the workdir) and `outside/secret.txt` beside it. */
async function createWorkdir(): Promise<{ workdir: string; outside: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'workdir-files-')));
  const workdir = join(root, 'work');
  const outside = join(root, 'outside');
  await mkdir(workdir);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  return { workdir, outside };
}

async function refusal(promise: Promise<unknown>): Promise<PathOutsideWorkdirError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(PathOutsideWorkdirError.isInstance(error)).toBe(true);
  return error as PathOutsideWorkdirError;
}

describe('resolveInWorkdir (workdir confinement)', () => {
  it('resolves relative and absolute paths inside the workdir, existing or not', async () => {
    const { workdir } = await createWorkdir();
    expect(await resolveInWorkdir(workdir, 'a/b.txt')).toBe(join(workdir, 'a/b.txt'));
    expect(await resolveInWorkdir(workdir, join(workdir, 'c.txt'))).toBe(join(workdir, 'c.txt'));
    expect(await resolveInWorkdir(workdir, 'x/../y.txt')).toBe(join(workdir, 'y.txt'));
  });

  it('refuses `..` escapes and absolute paths outside', async () => {
    const { workdir, outside } = await createWorkdir();
    const error = await refusal(resolveInWorkdir(workdir, '../outside/secret.txt'));
    expect(error.message).toContain('is outside the working directory');
    await refusal(resolveInWorkdir(workdir, join(outside, 'secret.txt')));
    await refusal(resolveInWorkdir(workdir, '/etc/passwd'));
  });

  it('refuses a symlinked directory pointing outside, also for files that do not exist yet', async () => {
    const { workdir, outside } = await createWorkdir();
    await symlink(outside, join(workdir, 'link'));
    const error = await refusal(resolveInWorkdir(workdir, 'link/secret.txt'));
    expect(error.message).toContain('through a symbolic link');
    await refusal(resolveInWorkdir(workdir, 'link/new/file.txt'));
  });

  it('refuses a symlinked file pointing outside and a dangling symlink', async () => {
    const { workdir, outside } = await createWorkdir();
    await symlink(join(outside, 'secret.txt'), join(workdir, 'secret-link'));
    await symlink(join(outside, 'missing.txt'), join(workdir, 'dangling'));
    await refusal(resolveInWorkdir(workdir, 'secret-link'));
    const error = await refusal(resolveInWorkdir(workdir, 'dangling'));
    expect(error.message).toContain('dangling symbolic link');
  });

  it('allows a symlink that stays inside the workdir', async () => {
    const { workdir } = await createWorkdir();
    await mkdir(join(workdir, 'real'));
    await symlink(join(workdir, 'real'), join(workdir, 'alias'));
    expect(await resolveInWorkdir(workdir, 'alias/f.txt')).toBe(join(workdir, 'real/f.txt'));
  });
});

describe('file tools (coding-agent-loop-spec §3.3)', () => {
  it('read_file numbers lines and honours offset and limit', async () => {
    const { workdir } = await createWorkdir();
    await writeFile(
      join(workdir, 'f.txt'),
      Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n'),
    );
    expect(await readWorkdirFile({ workdir, filePath: 'f.txt', offset: 9, limit: 2 })).toBe(
      ' 9 | line 9\n10 | line 10\n(2 more lines; read on with offset=11)',
    );
    expect((await readWorkdirFile({ workdir, filePath: 'f.txt' })).split('\n').at(-1)).toBe('12 | line 12');
  });

  it('read_file explains a missing file, a directory and a binary file', async () => {
    const { workdir } = await createWorkdir();
    await writeFile(join(workdir, 'bin.dat'), Buffer.from([1, 0, 2]));
    await expect(readWorkdirFile({ workdir, filePath: 'nope.txt' })).rejects.toThrow(
      'File not found: nope.txt',
    );
    await expect(readWorkdirFile({ workdir, filePath: '.' })).rejects.toThrow('is a directory');
    await expect(readWorkdirFile({ workdir, filePath: 'bin.dat' })).rejects.toThrow(
      'is a binary file (3 bytes)',
    );
  });

  it('write_file creates parent directories and reports the byte count', async () => {
    const { workdir } = await createWorkdir();
    expect(await writeWorkdirFile({ workdir, filePath: 'deep/dir/é.txt', content: 'héllo' })).toBe(
      'Wrote 6 bytes to deep/dir/é.txt',
    );
    expect(await readFile(join(workdir, 'deep/dir/é.txt'), 'utf8')).toBe('héllo');
  });

  it('write_file through a symlink to the outside writes nothing', async () => {
    const { workdir, outside } = await createWorkdir();
    await symlink(outside, join(workdir, 'link'));
    await refusal(writeWorkdirFile({ workdir, filePath: 'link/secret.txt', content: 'pwned' }));
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('edit_file replaces a unique string, refuses an ambiguous one, and replaces all on request', async () => {
    const { workdir } = await createWorkdir();
    await writeFile(join(workdir, 'a.py'), 'x = 1\ny = 1\nprint(x)\n');
    expect(
      await editWorkdirFile({ workdir, filePath: 'a.py', oldString: 'print(x)', newString: 'print(y)' }),
    ).toBe('Replaced 1 occurrence in a.py');
    await expect(
      editWorkdirFile({ workdir, filePath: 'a.py', oldString: '= 1', newString: '= 2' }),
    ).rejects.toThrow('old_string occurs 2 times in a.py');
    await expect(
      editWorkdirFile({ workdir, filePath: 'a.py', oldString: 'zzz', newString: '' }),
    ).rejects.toThrow('old_string was not found in a.py');
    expect(
      await editWorkdirFile({
        workdir,
        filePath: 'a.py',
        oldString: '= 1',
        newString: '= $&2',
        replaceAll: true,
      }),
    ).toBe('Replaced 2 occurrences in a.py');
    expect(await readFile(join(workdir, 'a.py'), 'utf8')).toBe('x = $&2\ny = $&2\nprint(y)\n');
  });

  it('glob lists matches newest first and skips node_modules', async () => {
    const { workdir } = await createWorkdir();
    await mkdir(join(workdir, 'src'));
    await mkdir(join(workdir, 'node_modules/pkg'), { recursive: true });
    await writeFile(join(workdir, 'src/old.ts'), '');
    await writeFile(join(workdir, 'src/new.ts'), '');
    await writeFile(join(workdir, 'node_modules/pkg/index.ts'), '');
    await utimes(join(workdir, 'src/old.ts'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect(await globWorkdir({ workdir, pattern: '**/*.ts' })).toBe('src/new.ts\nsrc/old.ts');
    expect(await globWorkdir({ workdir, pattern: '*.md' })).toBe('No files match *.md');
    await refusal(globWorkdir({ workdir, pattern: '../outside/*' }));
  });

  it('grep finds lines by regex with path:line: text, filters by glob and caps results', async () => {
    const { workdir } = await createWorkdir();
    await mkdir(join(workdir, 'pkg'));
    await writeFile(join(workdir, 'pkg/a.py'), 'def hello():\n    return "Hello"\n');
    await writeFile(join(workdir, 'notes.md'), 'hello notes\n');
    expect(await grepWorkdir({ workdir, pattern: 'hello', caseInsensitive: true, globFilter: '*.py' })).toBe(
      'pkg/a.py:1: def hello():\npkg/a.py:2:     return "Hello"',
    );
    expect(await grepWorkdir({ workdir, pattern: 'hello', maxResults: 1 })).toBe(
      'notes.md:1: hello notes\n(stopped at max_results=1)',
    );
    await expect(grepWorkdir({ workdir, pattern: '(' })).rejects.toThrow('Invalid regex "("');
  });

  it('grep does not read files that a symlink leads outside', async () => {
    const { workdir, outside } = await createWorkdir();
    await symlink(join(outside, 'secret.txt'), join(workdir, 'secret-link.txt'));
    expect(await grepWorkdir({ workdir, pattern: 'secret' })).toBe('No matches for "secret"');
  });

  it('loads AGENTS.md, plus the provider file, as project instructions', async () => {
    const { workdir } = await createWorkdir();
    await writeFile(join(workdir, 'AGENTS.md'), 'Use tabs.\n');
    await writeFile(join(workdir, 'CLAUDE.md'), 'Be brief.\n');
    expect(await readProjectInstructions(workdir, 'openai')).toBe('# AGENTS.md\n\nUse tabs.');
    expect(await readProjectInstructions(workdir, 'anthropic')).toBe(
      '# AGENTS.md\n\nUse tabs.\n\n# CLAUDE.md\n\nBe brief.',
    );
  });
});
