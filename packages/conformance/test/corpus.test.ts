/**
 * The real-world corpus (../shared/corpus/dot: 25 pipelines written by other people for other Attractor runners),
 * through the built `attractor` binary: `validate` never crashes and reports exactly the diagnostics that
 * packages/graph/test/corpus-diagnostics.json records (each checked by hand against its file there), and every
 * file without errors runs to its end with `run --dry-run --auto-approve`.
 *
 * Set CORPUS_RESULTS_FILE to have the run results written as JSON (scripts/corpus-table.mjs renders the README
 * table from it).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic } from '@attractor/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorpusEntry, corpusFiles, layOutCorpus } from './support/corpus-layout.js';
import { describeDiagnostic } from './support/lint.js';
import { corpusDiagnosticsFile, corpusDirectory } from './support/paths.js';
import { runCli } from './support/run-cli.js';

interface Recorded {
  readonly nodes: number;
  readonly edges: number;
  readonly diagnostics: readonly string[];
}

const recorded = JSON.parse(readFileSync(corpusDiagnosticsFile, 'utf8')) as Record<string, Recorded>;

/** What a dry run of a file is told (a simulation script) and what it must end with, and why. */
interface RunPlan {
  /** `--simulate-script` content: steps per node, one per call (an outcome word or `{ outcome?, stdout? }`). */
  readonly script?: Readonly<
    Record<string, readonly (string | { readonly outcome?: string; readonly stdout?: string })[]>
  >;
  /** The expected end; default `success`. */
  readonly status?: 'success' | 'fail';
  /** For `fail`: the failure reason must match. */
  readonly reason?: RegExp;
  /** Why the plan differs from a plain dry run. */
  readonly why: string;
}

/**
 * Files whose dry run needs steering. A dry run answers every LLM stage with success (or the custom outcome its
 * edges route on) and gives every tool node an empty output (or the first value its edges compare the output
 * with); a loop that only a real answer or a real command ends must be told when to end.
 */
const RUN_PLANS: Readonly<Record<string, RunPlan>> = {
  '2389-research__tracker__ask_and_execute.dot': {
    script: { ReviewAnalysis: ['disagree'] },
    why: 'as written, ReviewAnalysis "pass" (outcome=success) goes back to CommitWork and reviews again forever; only "disagree" leads on to the human gate and the exit (unsteered, the engine stops it at max_node_visits=25)',
  },
  '2389-research__tracker__kitchen-sink.dot': {
    script: {
      CheckExistingPlans: [{ stdout: 'fresh' }],
      ValidatePlanFormat: [{ stdout: 'format_ok' }],
      PickNextTask: [{ stdout: 'next_task-task-1' }, { stdout: 'all_complete' }],
      RunScenarios: [{ stdout: 'scenarios_pass' }],
    },
    why: 'routes on what its tool commands print (context.tool_stdout, the 2389 tracker\'s name, which our tool handler writes too), and a dry run runs no command: the script says what they print, so the run takes the fresh path through design, plan, one task, scenarios and review (unsteered, CheckExistingPlans takes "resume" and PickNextTask "all_complete", the first values their edges compare with, so no task runs)',
  },
  'danshapiro__kilroy__consensus_task.dot': {
    script: { ReviewConsensus: ['yes'] },
    why: 'ReviewConsensus exits only on outcome=yes; on success it takes the unconditional edge to Postmortem, whose loop_restart edges start over',
  },
  'danshapiro__kilroy__semport.dot': {
    script: { FetchUpstreamSonnet: ['process', 'done'] },
    why: 'a loop_restart port loop: one round ("process"), then "done" exits (unsteered, it restarts until max_steps)',
  },
};

/** One file's row of the README table. */
export interface CorpusResult {
  readonly file: string;
  readonly nodes: number;
  readonly errors: number;
  /** The rules of the error diagnostics, in order. */
  readonly errorRules: readonly string[];
  readonly warnings: number;
  readonly run: { readonly status: string; readonly stages: number; readonly reason?: string } | null;
  readonly steering?: string;
}

const results: CorpusResult[] = [];
let root = '';
let entries: CorpusEntry[] = [];
let validated: { files: { file: string; nodes: number; diagnostics: Diagnostic[] }[] } | undefined;

beforeAll(async () => {
  if (corpusDirectory === undefined) return;
  // Not tempDir(): that one is removed after each test, and this tree serves them all.
  root = mkdtempSync(join(tmpdir(), 'attractor-corpus-'));
  entries = layOutCorpus(join(root, 'corpus'));
  // One process validates all 25 files, as a user would lint a directory.
  const run = await runCli(['validate', '--json', ...entries.map((entry) => entry.path)], {
    cwd: root,
    timeoutMs: 150_000,
  });
  expect(run.stderr).toBe('');
  expect([0, 1]).toContain(run.exitCode);
  validated = JSON.parse(String(run.stdout));
}, 180_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  const out = process.env.CORPUS_RESULTS_FILE;
  if (out !== undefined) writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
});

describe.skipIf(corpusDirectory === undefined)('the shared corpus through the attractor CLI', () => {
  it('covers every corpus file, and each has a record in packages/graph/test/corpus-diagnostics.json', () => {
    expect(corpusFiles().length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(recorded).sort()).toEqual(corpusFiles());
    expect(validated!.files).toHaveLength(corpusFiles().length);
  });

  it.each(corpusFiles())(
    '%s: validate reports the recorded diagnostics; a file without errors runs to its end',
    async (file) => {
      const entry = entries.find((candidate) => candidate.file === file)!;
      const report = validated!.files.find((candidate) => candidate.file === entry.path)!;
      expect(report, `validate --json has no entry for ${entry.path}`).toBeDefined();
      expect({ nodes: report.nodes, diagnostics: report.diagnostics.map(describeDiagnostic) }).toEqual({
        nodes: recorded[file]!.nodes,
        diagnostics: recorded[file]!.diagnostics,
      });
      const errorRules = report.diagnostics
        .filter((diagnostic) => diagnostic.severity === 'error')
        .map((diagnostic) => diagnostic.rule);
      const errors = errorRules.length;
      const warnings = report.diagnostics.length - errors;
      const plan = RUN_PLANS[file];
      if (errors > 0) {
        // A file with errors is refused by `run` too, with the diagnostics and exit code 2.
        const refused = await runCli(['run', '--dry-run', '--auto-approve', entry.path], { cwd: root });
        expect(refused.exitCode).toBe(2);
        expect(refused.stderr).toMatch(/error\[/);
        expect(refused.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
        results.push({ file, nodes: report.nodes, errors, errorRules, warnings, run: null });
        return;
      }
      const runDir = join(root, 'runs', file);
      mkdirSync(runDir, { recursive: true });
      const args = [
        'run',
        '--dry-run',
        '--auto-approve',
        '--json',
        '--logs-dir',
        join(runDir, 'run'),
        '--workdir',
        runDir,
      ];
      if (plan?.script !== undefined) {
        const scriptPath = join(runDir, 'simulate.json');
        writeFileSync(scriptPath, JSON.stringify(plan.script));
        args.push('--simulate-script', scriptPath);
      }
      const run = await runCli([...args, entry.path], { cwd: runDir, timeoutMs: 150_000 });
      expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
      const events = String(run.stdout)
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { type: string; error?: string });
      const last = events.at(-1)!;
      const status =
        last.type === 'pipeline.completed' ? 'success' : last.type === 'pipeline.failed' ? 'fail' : last.type;
      const stages = events.filter((event) => event.type === 'stage.completed').length;
      results.push({
        file,
        nodes: report.nodes,
        errors,
        errorRules,
        warnings,
        run: { status, stages, ...(last.error === undefined ? {} : { reason: last.error }) },
        ...(plan === undefined ? {} : { steering: plan.why }),
      });
      expect(status, `${file}: ${last.error ?? ''}`).toBe(plan?.status ?? 'success');
      expect(run.exitCode).toBe(status === 'success' ? 0 : 1);
      if (plan?.reason !== undefined) expect(last.error).toMatch(plan.reason);
    },
    // Each file's CLI run takes 1-5 s on a quiet machine; this leaves room for a machine shared with other runs.
    180_000,
  );
});
