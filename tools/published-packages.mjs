// The workspace packages that are published to npm: not private and not ignored by changesets
// (`.changeset/config.json`). Used by `.ci/published-packages.mjs`, `tools/check-packages.mjs` and the CLI's
// pack-and-install test (apps/cli/test/packed-install.e2e.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The published packages of the repository at `root`, in a stable order (`packages/*`, then `apps/*`, each sorted
 * by folder name).
 * @param {string} root the repository root
 * @returns {{ directory: string, name: string, manifest: Record<string, unknown> }[]} `directory` relative to root
 */
export function publishedPackages(root) {
  const ignored = new Set(
    JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8')).ignore ?? [],
  );
  const found = [];
  for (const group of ['packages', 'apps']) {
    for (const folder of readdirSync(join(root, group)).sort()) {
      const directory = `${group}/${folder}`;
      const file = join(root, directory, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private || ignored.has(manifest.name)) continue;
      found.push({ directory, name: manifest.name, manifest });
    }
  }
  return found;
}
