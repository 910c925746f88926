// Sums the vitest JSON reports of every workspace package into one `N passed, N failed` line.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of ['packages', 'apps', 'examples', 'tools']) {
  if (!existsSync(group)) continue;
  for (const name of readdirSync(group)) {
    const report = join(group, name, '.vitest-results.json');
    if (!existsSync(report)) continue;
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed += result.numPassedTests;
    failed += result.numFailedTests + (result.numRuntimeErrors ?? 0);
    skipped += result.numPendingTests + (result.numTodoTests ?? 0);
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (passed === 0 || failed > 0) process.exit(1);
