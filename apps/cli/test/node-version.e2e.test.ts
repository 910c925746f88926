/**
 * The `attractor` command on a Node.js older than it supports (issue 14): one line naming the version it needs and
 * the one it found, exit code 2, no stack trace. Run once with Node's reported version lowered before the command
 * starts, and once with a real Node.js older than 22 where the machine has one (these machines start with Node 20
 * at /usr/bin/node; the test says so where it has none). In a clone with the README's `.tools/node24` the line also
 * says how to put that Node 24 on PATH (third new-user trial).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

const LOWER_VERSION = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.19.0"})`;

/** A real `node` older than 22 on this machine, if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(version.slice(1).split('.')[0]) < 22) return candidate;
  }
  process.stderr.write(
    'no Node.js older than 22 on this machine: the real-old-Node case of node-version.e2e is skipped\n',
  );
  return undefined;
}

/**
 * A copy of bin/attractor.js at `<temp>/apps/cli/bin/attractor.js`, as in a clone, with the README's
 * `.tools/node24` at `<temp>` when `withNode24`. The version check runs before the copy would load dist/.
 */
async function binInClone(withNode24: boolean): Promise<{ bin: string; node24Bin: string }> {
  const root = await temporaryDirectory('attractor-clone-');
  await mkdir(join(root, 'apps', 'cli', 'bin'), { recursive: true });
  const bin = join(root, 'apps', 'cli', 'bin', 'attractor.js');
  await copyFile(BIN, bin);
  const node24Bin = join(root, '.tools', 'node24', 'node_modules', 'node', 'bin');
  if (withNode24) await mkdir(node24Bin, { recursive: true });
  return { bin, node24Bin };
}

/** Runs `bin` on the Node.js running the tests, with its reported version lowered to 20.19.0. */
function runReportingNode20(bin: string, args: readonly string[]) {
  return execa('node', ['--import', LOWER_VERSION, bin, ...args], {
    env: childEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

describe('attractor on a Node.js older than 22.12', () => {
  it('says which version it needs and which it found, in one line, and exits with 2', async () => {
    // A clone without .tools/node24 (the repository itself may have one, from the README's set-up).
    const { bin } = await binInClone(false);
    const result = await runReportingNode20(bin, ['validate', 'missing.dot']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'attractor: needs Node.js 22.12 or newer, found 20.19.0; install Node.js 24 LTS.',
    );
  });

  it('names the .tools/node24 of the README set-up and the PATH export for a new shell, when the clone has it', async () => {
    const { bin, node24Bin } = await binInClone(true);
    const result = await runReportingNode20(bin, ['--version']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `attractor: needs Node.js 22.12 or newer, found 20.19.0; install Node.js 24 LTS. This repository has Node 24 in .tools/node24: run export PATH="${node24Bin}:$PATH" (in every new shell).`,
    );
  });

  const old = olderNode();
  it.skipIf(old === undefined)('refuses to start on a real old Node.js the same way', async () => {
    const { bin } = await binInClone(false);
    const result = await execa(old!, [bin, '--version'], { reject: false, stdin: 'ignore' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^attractor: needs Node\.js 22\.12 or newer, found 2[01]\.\d+\.\d+; install Node\.js 24 LTS\.$/,
    );
    const clone = await binInClone(true);
    const hinted = await execa(old!, [clone.bin, '--version'], { reject: false, stdin: 'ignore' });
    expect(hinted.exitCode).toBe(2);
    expect(hinted.stderr).toContain(
      `; install Node.js 24 LTS. This repository has Node 24 in .tools/node24: run export PATH="${clone.node24Bin}:$PATH" (in every new shell).`,
    );
  });

  it('asks for the same version as every package.json engines field', () => {
    const bin = readFileSync(BIN, 'utf8');
    const required = /const REQUIRED_NODE = '([\d.]+)';/.exec(bin)?.[1];
    const manifests = execFileSync('git', ['ls-files', '*package.json'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .trim()
      .split('\n');
    const engines = manifests
      .map((file) => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')).engines?.node)
      .filter((range): range is string => range !== undefined);
    expect(engines.length).toBeGreaterThanOrEqual(10);
    expect(new Set(engines)).toEqual(new Set([`>=${required}`]));
  });

  it('still starts on the Node.js running the tests', async () => {
    const result = await execa('node', [BIN, '--version'], {
      env: childEnv(),
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
