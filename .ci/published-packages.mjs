// Prints the directories of the workspace packages that are published to npm (not private, not ignored by
// changesets), one per line: the packages that .ci/run tests again on the oldest supported Node.
import { publishedPackages } from '../tools/published-packages.mjs';

for (const { directory } of publishedPackages(process.cwd())) console.log(directory);
