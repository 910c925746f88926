/**
 * The README's "Using the packages outside this repository" steps pack a list of package directories and install
 * the tarballs into another project. npm then needs every @attractor/* package the CLI depends on among them: a
 * new user hit `404 Not Found - GET https://registry.npmjs.org/@attractor%2fserver` when the list lacked
 * packages/server. This checks the list against the dependency closure of @attractor/cli.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

interface PackageJson {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

function readPackage(directory: string): PackageJson {
  return JSON.parse(readFileSync(join(REPO_ROOT, directory, 'package.json'), 'utf8')) as PackageJson;
}

/** The directories of the README's `for p in ...; do (cd "$p" && pnpm pack ...); done` loop. */
function packedDirectories(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const loop = /for p in ([^;]+); do \(cd "\$p" && pnpm pack/.exec(readme);
  if (loop === null) throw new Error('README.md has no `for p in ...; do (cd "$p" && pnpm pack` loop');
  return loop[1]!.replace(/\\\n/g, ' ').trim().split(/\s+/);
}

describe('README: installing the packages outside this repository', () => {
  it('packs every @attractor package that @attractor/cli needs at run time, and only published ones', () => {
    const directories = packedDirectories();
    const byName = new Map(directories.map((directory) => [readPackage(directory).name, directory]));
    for (const [name, directory] of byName) {
      expect(readPackage(directory).private, `${name} (${directory}) is private`).not.toBe(true);
    }
    // Walk the runtime dependencies (and peers, which npm installs) from the CLI.
    const needed = new Set<string>();
    const queue = ['@attractor/cli'];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (needed.has(name)) continue;
      needed.add(name);
      const directory = byName.get(name);
      expect(directory, `README.md's pack loop lacks the directory of ${name}`).toBeDefined();
      const json = readPackage(directory!);
      for (const dependency of Object.keys({ ...json.dependencies, ...json.peerDependencies })) {
        if (dependency.startsWith('@attractor/')) queue.push(dependency);
      }
    }
    expect([...needed].sort()).toEqual([...byName.keys()].sort());
  });
});
