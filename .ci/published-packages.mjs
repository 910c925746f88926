// Prints the directories of the workspace packages that are published to npm (not private, not ignored by
// changesets), one per line: the packages that .ci/run tests again on the oldest supported Node.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ignored = new Set(JSON.parse(readFileSync('.changeset/config.json', 'utf8')).ignore ?? []);
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(group).sort()) {
    const manifest = join(group, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    if (pkg.private || ignored.has(pkg.name)) continue;
    console.log(join(group, name));
  }
}
