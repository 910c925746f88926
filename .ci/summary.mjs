// Sums the vitest JSON reports of every workspace package into one `N passed, N failed` line. Each argument is
// `<report file name>:<label>`; a line per label comes first, then a line per failed test (file, name, first line of
// its message), then the plain total line that CI reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const reports = process.argv.length > 2 ? process.argv.slice(2) : ['.vitest-results.json:all'];
const total = { passed: 0, failed: 0, skipped: 0 };
const line = ({ passed, failed, skipped }) =>
  `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
const failures = [];
let empty = false;
for (const spec of reports) {
  const [file, label = file] = spec.split(/:(.*)/s);
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const group of ['packages', 'apps', 'examples', 'tools']) {
    if (!existsSync(group)) continue;
    for (const name of readdirSync(group)) {
      const report = join(group, name, file);
      if (!existsSync(report)) continue;
      const result = JSON.parse(readFileSync(report, 'utf8'));
      counts.passed += result.numPassedTests;
      counts.failed += result.numFailedTests + (result.numRuntimeErrors ?? 0);
      counts.skipped += result.numPendingTests + (result.numTodoTests ?? 0);
      for (const file of result.testResults ?? []) {
        const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
        for (const test of failed) {
          const message = (test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
          failures.push(`FAILED (${label}) ${file.name} > ${test.fullName}: ${message}`);
        }
        if (failed.length === 0 && file.status === 'failed') {
          failures.push(`FAILED (${label}) ${file.name}: ${(file.message ?? '').split('\n')[0].slice(0, 300)}`);
        }
      }
    }
  }
  if (counts.passed === 0) empty = true;
  if (reports.length > 1) console.log(`(${label}: ${line(counts)})`);
  for (const key of Object.keys(total)) total[key] += counts[key];
}
// The failed tests come last but one, so a log's tail names them.
for (const failure of failures) console.log(failure);
console.log(line(total));
if (empty || total.failed > 0) process.exit(1);
