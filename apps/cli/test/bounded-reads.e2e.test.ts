import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const parentDot = (ref: string) => `digraph parent {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  child [type="subgraph", graph_ref="${ref}"]
  start -> child -> exit
}`;

describe('bounded reads of user-named files (issue 20 §2)', () => {
  it('refuses a graph_ref to /dev/zero at once, naming the path and the reason', async () => {
    const dir = await temporaryDirectory();
    await writeFile(join(dir, 'parent.dot'), parentDot('/dev/zero'));
    const result = await attractor(['validate', 'parent.dot'], { cwd: dir, timeout: 50_000 });
    expect(result.exitCode).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      '/dev/zero is a character device, not a regular file; only regular files are read',
    );
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const dir = await temporaryDirectory();
    execFileSync('mkfifo', [join(dir, 'pipe.dot')]);
    await writeFile(join(dir, 'parent.dot'), parentDot('pipe.dot'));
    const viaRef = await attractor(['validate', 'parent.dot'], { cwd: dir, timeout: 50_000 });
    expect(viaRef.exitCode).toBe(1);
    expect(viaRef.stdout + viaRef.stderr).toContain('is a FIFO (named pipe), not a regular file');
    const direct = await attractor(['validate', 'pipe.dot'], { cwd: dir, timeout: 50_000 });
    expect(direct.exitCode).toBe(2);
    expect(direct.stderr).toContain(`Pipeline file ${join(dir, 'pipe.dot')} is a FIFO (named pipe)`);
  });

  it('reads --config with the same bounds: /dev/zero, a FIFO and an oversized file are refused at once (issue 34 §14)', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    execFileSync('mkfifo', [join(dir, 'config.mjs')]);
    for (const command of ['validate', 'run']) {
      const zero = await attractor([command, 'p.dot', '--config', '/dev/zero'], {
        cwd: dir,
        timeout: 20_000,
      });
      expect(zero.exitCode, command).toBe(2);
      expect(zero.stderr).toContain(
        'Config file /dev/zero is a character device, not a regular file; only regular files are read',
      );
      const fifo = await attractor([command, 'p.dot', '--config', 'config.mjs'], {
        cwd: dir,
        timeout: 20_000,
      });
      expect(fifo.exitCode, command).toBe(2);
      expect(fifo.stderr).toContain(`Config file ${join(dir, 'config.mjs')} is a FIFO (named pipe)`);
    }
    const config = `export default { defaults: { model: 'm' } };\n// ${'x'.repeat(2000)}\n`;
    await writeFile(join(dir, 'big.config.mjs'), config);
    const big = await attractor(['validate', 'p.dot', '--config', 'big.config.mjs'], {
      cwd: dir,
      env: { ATTRACTOR_MAX_FILE_BYTES: '1000' },
    });
    expect(big.exitCode).toBe(2);
    expect(big.stderr).toContain(
      `is ${Buffer.byteLength(config)} bytes, over the limit of 1000 bytes (raise it with ATTRACTOR_MAX_FILE_BYTES=<bytes>)`,
    );
    expect(
      (await attractor(['validate', 'p.dot', '--config', 'big.config.mjs'], { cwd: dir })).exitCode,
    ).toBe(0);
  });

  it('reads --prices with the same bounds, and a file that is not JSON is named, never quoted (issue 34 §14)', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; plan [prompt="Plan"]; exit [shape=Msquare]; start -> plan -> exit }\n',
    );
    execFileSync('mkfifo', [join(dir, 'prices.json')]);
    const zero = await attractor(['run', 'p.dot', '--prices', '/dev/zero'], { cwd: dir, timeout: 20_000 });
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toContain(
      'The price file (--prices) /dev/zero is a character device, not a regular file; only regular files are read',
    );
    const fifo = await attractor(['run', 'p.dot', '--prices', 'prices.json'], { cwd: dir, timeout: 20_000 });
    expect(fifo.exitCode).toBe(2);
    expect(fifo.stderr).toContain(
      `The price file (--prices) ${join(dir, 'prices.json')} is a FIFO (named pipe)`,
    );
    // A file that is not JSON at all (JSON.parse's own message would quote its first characters) ...
    await writeFile(join(dir, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    const passwd = await attractor(['run', 'p.dot', '--prices', 'passwd'], { cwd: dir, timeout: 20_000 });
    expect(passwd.exitCode).toBe(2);
    expect(passwd.stderr).toContain(
      `The price file ${join(dir, 'passwd')} (--prices) is not valid JSON. Write {"<model id>": {"input": 3, "output": 15, "cachedInput": 0.3}}`,
    );
    expect(passwd.stdout + passwd.stderr).not.toContain('root:x');
    // ... and one with a JSON error at a known place, which is named by line and column, its text not quoted.
    await writeFile(join(dir, 'broken.json'), '{\n  "gpt-secret-model": {"input": 1},\n}\n');
    const broken = await attractor(['run', 'p.dot', '--prices', 'broken.json'], {
      cwd: dir,
      timeout: 20_000,
    });
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain(
      `The price file ${join(dir, 'broken.json')} (--prices) is not valid JSON (at line 3, column 1).`,
    );
    expect(broken.stdout + broken.stderr).not.toContain('gpt-secret-model');
    const prices = JSON.stringify({ 'gpt-test': { input: 1, output: 2 } }) + ' '.repeat(2000);
    await writeFile(join(dir, 'big.json'), prices);
    const big = await attractor(['run', 'p.dot', '--prices', 'big.json'], {
      cwd: dir,
      env: { ATTRACTOR_MAX_FILE_BYTES: '1000' },
      timeout: 20_000,
    });
    expect(big.exitCode).toBe(2);
    expect(big.stderr).toContain(
      `is ${Buffer.byteLength(prices)} bytes, over the limit of 1000 bytes (raise it with ATTRACTOR_MAX_FILE_BYTES=<bytes>)`,
    );
  });

  it('refuses a file over the size limit, which ATTRACTOR_MAX_FILE_BYTES sets', async () => {
    const dir = await temporaryDirectory();
    const source = `digraph big {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n  // ${'x'.repeat(2000)}\n}\n`;
    await writeFile(join(dir, 'big.dot'), source);
    const refused = await attractor(['validate', 'big.dot'], {
      cwd: dir,
      env: { ATTRACTOR_MAX_FILE_BYTES: '1000' },
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `is ${Buffer.byteLength(source)} bytes, over the limit of 1000 bytes (raise it with ATTRACTOR_MAX_FILE_BYTES=<bytes>)`,
    );
    const accepted = await attractor(['validate', 'big.dot'], { cwd: dir });
    expect(accepted.exitCode).toBe(0);
  });
});
