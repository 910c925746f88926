#!/usr/bin/env node
// `pnpm --filter @attractor/conformance corpus-table`: runs the corpus test (test/corpus.test.ts: every file of
// ../shared/corpus/dot through the built `attractor` binary) and writes its results as the table in README.md,
// between the corpus-table markers, so the table always says what the test saw. Needs a build first.
// Exit code 1 when the corpus test fails (the table is still written).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readmePath = path.join(packageDir, 'README.md');
const START = '<!-- corpus-table:start -->';
const END = '<!-- corpus-table:end -->';

const outDir = mkdtempSync(path.join(tmpdir(), 'attractor-corpus-table-'));
const resultsFile = path.join(outDir, 'corpus-results.json');
let failed = false;
try {
  try {
    execFileSync('pnpm', ['exec', 'vitest', 'run', 'test/corpus.test.ts', '--reporter=dot'], {
      cwd: packageDir,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CORPUS_RESULTS_FILE: resultsFile },
    });
  } catch {
    failed = true;
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')).sort((a, b) => a.file.localeCompare(b.file));
  const rows = [];
  const notes = [];
  for (const result of results) {
    let run = 'not run: `run` refuses a file with errors (exit 2)';
    if (result.run !== null) {
      run = `${result.run.status}, ${result.run.stages} stages`;
      if (result.run.reason) run += `: ${result.run.reason.replaceAll('|', '\\|')}`;
    }
    if (result.steering) {
      notes.push(result.steering);
      run += ` [${notes.length}]`;
    }
    const counts = new Map();
    for (const rule of result.errorRules) counts.set(rule, (counts.get(rule) ?? 0) + 1);
    const rules = [...counts].map(([rule, count]) => (count > 1 ? `${rule} ×${count}` : rule)).join(', ');
    const diagnostics = `${result.errors} / ${result.warnings}${rules === '' ? '' : ` (${rules})`}`;
    rows.push([`\`${result.file}\``, String(result.nodes), diagnostics, run]);
  }
  const lines = padTable(
    ['file', 'nodes', 'diagnostics (errors / warnings)', 'dry run (status, stages executed)'],
    rows,
    [false, true, false, false],
  );
  const totals = {
    files: results.length,
    withErrors: results.filter((result) => result.errors > 0).length,
    succeeded: results.filter((result) => result.run?.status === 'success').length,
    ran: results.filter((result) => result.run !== null).length,
  };
  lines.push(
    '',
    `${totals.files} files; ${totals.withErrors} with errors (not run); ${totals.succeeded} of ${totals.ran} dry runs succeed. Stages count every \`stage.completed\` event, parallel branches and loop visits included.`,
  );
  if (notes.length > 0) {
    lines.push('', 'Steering of the dry run, and why:', '');
    for (const [index, note] of notes.entries()) lines.push(`${index + 1}. ${note}`);
  }
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${readmePath} lacks the ${START} / ${END} markers`);
  writeFileSync(
    readmePath,
    `${readme.slice(0, start + START.length)}\n${lines.join('\n')}\n${readme.slice(end)}`,
  );
  console.log(`README.md: corpus table of ${results.length} files written.`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** A Markdown table with every column padded to its widest cell (as a Markdown formatter leaves it). */
function padTable(header, rows, rightAligned) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const cells = (row) =>
    `| ${row.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [cells(header), rule, ...rows.map(cells)];
}
