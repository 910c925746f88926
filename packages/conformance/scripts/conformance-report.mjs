#!/usr/bin/env node
// `pnpm conformance`: runs the spec §11 conformance tests (test/spec-11-*.test.ts) with vitest's JSON reporter
// and prints one row per checkbox of spec §11.1-§11.11, per row of the §11.12 matrix and for §11.13:
// section, item, pass/fail. The items are read from the spec itself, so a checkbox without a test shows as
// MISSING. A bracketed note after an item in a test name marks a deliberate difference
// (docs/architecture.md "Decisions") or says how the item is met. Exit code 1 when any item fails or is
// missing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The spec is not part of this repository: ATTRACTOR_SPEC names it, else it is looked for beside the clone.
const specFile = path.resolve(
  process.env.ATTRACTOR_SPEC ||
    path.resolve(packageDir, '..', '..', '..', 'shared', 'spec', 'attractor-spec.md'),
);
if (!existsSync(specFile)) {
  console.error(
    `The report lists the items of the Attractor spec's §11, and the spec is not at ${specFile}: it is not part of this repository. Set ATTRACTOR_SPEC=/path/to/attractor-spec.md. (The conformance tests themselves run in \`pnpm test\` without it.)`,
  );
  process.exit(2);
}

/** Spec items of §11.1-§11.13 in order: { section, title, item }. */
function specItems() {
  const lines = readFileSync(specFile, 'utf8').split('\n');
  const items = [];
  let section;
  for (const line of lines) {
    const heading = /^### (11\.\d+) (.+)$/.exec(line);
    if (heading) {
      section = { id: heading[1], title: heading[2] };
      if (section.id === '11.13')
        items.push({
          section: section.id,
          title: section.title,
          item: 'End-to-end test with a real LLM callback',
        });
      continue;
    }
    if (line.startsWith('## ') && section) section = line.startsWith('## 11.') ? section : undefined;
    if (!section) continue;
    const checkbox = /^- \[ \] (.+)$/.exec(line);
    const row = /^\| (.+?)\s*\| \[ \] \|$/.exec(line);
    const text = checkbox?.[1] ?? row?.[1];
    if (text) items.push({ section: section.id, title: section.title, item: text.trim() });
  }
  return items;
}

const outDir = mkdtempSync(path.join(tmpdir(), 'attractor-conformance-report-'));
const outFile = path.join(outDir, 'results.json');
try {
  try {
    execFileSync(
      'pnpm',
      [
        'exec',
        'vitest',
        'run',
        'test/spec-11-',
        '--reporter=dot',
        '--reporter=json',
        `--outputFile.json=${outFile}`,
      ],
      { cwd: packageDir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } catch {
    // Failures are reported in the table below.
  }
  const report = JSON.parse(readFileSync(outFile, 'utf8'));
  const tests = report.testResults.flatMap((file) => file.assertionResults);
  const rows = specItems().map(({ section, title, item }) => {
    const test = tests.find(
      (candidate) => candidate.title === item || candidate.title.startsWith(`${item} [`),
    );
    const note =
      test && test.title !== item
        ? test.title
            .slice(item.length)
            .trim()
            .replace(/^\[|\]$/g, '')
        : '';
    const status =
      test === undefined ? 'MISSING' : test.status === 'passed' ? 'pass' : test.status.toUpperCase();
    return { section: `§${section} ${title}`, item, status, note };
  });
  const width = (key, max) => Math.min(max, Math.max(key.length, ...rows.map((row) => row[key].length)));
  const widths = { section: width('section', 34), item: width('item', 90), status: 7 };
  const cut = (text, size) => (text.length > size ? `${text.slice(0, size - 1)}…` : text.padEnd(size));
  const line = (row) =>
    `| ${cut(row.section, widths.section)} | ${cut(row.item, widths.item)} | ${cut(row.status, widths.status)} |`;
  console.log(line({ section: 'section', item: 'item', status: 'result' }));
  console.log(
    `|${'-'.repeat(widths.section + 2)}|${'-'.repeat(widths.item + 2)}|${'-'.repeat(widths.status + 2)}|`,
  );
  for (const row of rows) console.log(line(row));
  const notes = rows.filter((row) => row.note !== '');
  if (notes.length > 0) {
    console.log(
      '\nNotes: deliberate differences (asserted as docs/architecture.md says) and how an item is met:',
    );
    for (const row of notes)
      console.log(`  §${row.section.split(' ')[0].slice(1)} ${row.item}\n      -> ${row.note}`);
  }
  const passed = rows.filter((row) => row.status === 'pass').length;
  console.log(`\n${passed}/${rows.length} spec items pass.`);
  process.exit(passed === rows.length ? 0 : 1);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
