import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { PIPELINES, SAMPLE_PROJECT, temporaryDirectory } from './helpers/cli.js';
import { createTestIo } from './helpers/test-io.js';

describe('human gates on a terminal', () => {
  it('asks the console interviewer in place and follows the typed answers', async () => {
    const cwd = await temporaryDirectory();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let stdout = '';
    let asked = 0;
    const io = {
      ...createTestIo({ cwd }),
      stdin,
      stdout: {
        write: (text: string) => {
          stdout += text;
          // Answer each question as soon as it is printed: first request changes, then approve.
          if (text.includes('[?] Publish these release notes?')) {
            asked += 1;
            stdin.write(asked === 1 ? 'R\n' : 'a\n');
          }
          return true;
        },
      },
    };
    const code = await main({
      argv: [
        'run',
        `${PIPELINES}/release-approval.dot`,
        '--simulate',
        '--workdir',
        SAMPLE_PROJECT,
        // The sample project is inside this repository: a git workspace would leave a branch in it.
        '--workspace',
        'in-place',
        '--logs-dir',
        'run',
      ],
      io,
    });
    expect(code).toBe(0);
    expect(asked).toBe(2);
    expect(stdout).toContain('[A] Approve and publish');
    expect(stdout).toContain('approve: answered [R] Request changes');
    expect(stdout).toContain('approve: answered [A] Approve and publish');
    expect(stdout).toMatch(/✔ Pipeline succeeded in .* \(7 stages\)/);
  });
});
