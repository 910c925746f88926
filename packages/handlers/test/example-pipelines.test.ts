import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAutoApproveInterviewer } from '../src/interviewers/auto-approve-interviewer.js';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { loadSimulationScript } from '../src/load-simulation-script.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { graphFrom, readJson, readText, runDot, tempDir } from './helpers.js';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
const pipelines = join(examples, 'pipelines');

function example(name: string) {
  const path = join(pipelines, name);
  return graphFrom(readText(path), path);
}

/** A private copy of examples/sample-project, so tool stages never write into the repository. */
function sampleProject(): string {
  const dir = join(tempDir(), 'sample-project');
  cpSync(join(examples, 'sample-project'), dir, { recursive: true });
  return dir;
}

describe('examples/pipelines run with the simulation backend', () => {
  it('covers every example pipeline', () => {
    expect(
      readdirSync(pipelines)
        .filter((name) => name.endsWith('.dot'))
        .sort(),
    ).toEqual([
      'build-and-test.dot',
      'checks-core.dot',
      'ensemble-review.dot',
      'flaky-retry.dot',
      'merge-reviews.dot',
      'release-approval.dot',
      'review-each-file.dot',
      'ship-with-checks.dot',
      'sprint-child.dot',
      'sprint-supervisor.dot',
      'triage-routing.dot',
    ]);
  });

  it('build-and-test: the three real checks pass in parallel, then package and report', async () => {
    const { result, logsRoot } = await runDot(example('build-and-test.dot'), {
      backend: createSimulationBackend(),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'plan',
      'checks',
      'collect',
      'all_green',
      'package',
      'report',
      'exit',
    ]);
    expect(result.context.get('parallel.outcome')).toBe('success');
    expect(readText(join(logsRoot, 'checks', 'branches', 'tests', 'tests', 'stdout.txt'))).toMatch(
      /(?:#|ℹ) pass [1-9]/,
    );
    expect(readText(join(logsRoot, 'package', 'stdout.txt'))).toContain('packaged 2 files into');
  });

  it('review-each-file: a foreach over the listed sources, a verdict and a review per file, merged into one summary', async () => {
    const { result, logsRoot } = await runDot(example('review-each-file.dot'), {
      backend: createSimulationBackend(),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'list', 'each', 'summary', 'exit']);
    const files = ['src/index.js', 'src/slugify.js'];
    expect(result.context.get('verdicts')).toEqual(files.map((file) => ({ file, parses: true })));
    const reviews = result.context.get('reviews') as { item: string; status: string }[];
    expect(reviews.map((review) => [review.item, review.status])).toEqual(
      files.map((file) => [file, 'success']),
    );
    expect(readText(join(logsRoot, 'each', 'items', '1', 'review', 'prompt.md'))).toContain(
      'Review src/slugify.js',
    );
    expect(result.context.get('parallel.fan_in.mode')).toBe('merge');
  });

  it('ensemble-review: three reviewers, the judge picks one, the summary gate passes', async () => {
    const { result } = await runDot(example('ensemble-review.dot'), { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan_out', 'judge', 'summary', 'exit']);
    expect(result.context.get('parallel.success_count')).toBe(3);
    expect(result.context.get('parallel.fan_in.best_id')).toBe('api_design');
  });

  it('merge-reviews: the fan-in merges two reviews and a tool output, each in full, into one result', async () => {
    const simulation = createSimulationBackend();
    const prompts = new Map<string, string>();
    const { result, logsRoot } = await runDot(example('merge-reviews.dot'), {
      backend: {
        run: (request) => {
          prompts.set(request.node.id, request.prompt);
          return request.node.id === 'merge'
            ? Promise.resolve(`Merged review of ${branchIds(request.prompt).join(', ')}`)
            : simulation.run(request);
        },
      },
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan_out', 'merge', 'report', 'exit']);
    const mergePrompt = prompts.get('merge')!;
    // Every branch's full output, readably: the reviews' response.md and the tool's stdout.txt.
    for (const branch of ['correctness', 'api_design', 'inventory']) {
      const dir = join(logsRoot, 'fan_out', 'branches', branch, branch);
      const full = readText(join(dir, branch === 'inventory' ? 'stdout.txt' : 'response.md'));
      expect(mergePrompt).toContain(`## ${branch} (success)\n\n${full}`);
    }
    expect(mergePrompt).toContain('slugify.js');
    const merged = 'Merged review of correctness, api_design, inventory';
    expect(result.context.get('parallel.fan_in.merged')).toBe(merged);
    expect(result.context.get('parallel.fan_in.mode')).toBe('merge');
    expect(readText(join(logsRoot, 'merge', 'response.md'))).toBe(merged);
  });

  it('flaky-retry: the fixture fetch fails once for real and succeeds on the retry', async () => {
    const { result, events } = await runDot(example('flaky-retry.dot'), {
      backend: createSimulationBackend(),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fetch_fixtures', 'run_tests', 'verify', 'exit']);
    const failed = events.filter((event) => event.type === 'stage.failed');
    expect(failed).toMatchObject([
      {
        nodeId: 'fetch_fixtures',
        error: 'command exited with code 1: mirror busy, try again',
        willRetry: true,
      },
    ]);
  });

  it('release-approval: queued answers request changes, then approve and publish', async () => {
    const { result, logsRoot } = await runDot(example('release-approval.dot'), {
      backend: createSimulationBackend(),
      interviewer: createQueueInterviewer({ answers: ['R', 'A'] }),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'draft',
      'approve',
      'revise',
      'approve',
      'publish',
      'exit',
    ]);
    expect(readText(join(logsRoot, 'publish', 'stdout.txt'))).toBe(
      `release notes published for run ${logsRoot.split('/').pop()}\n`,
    );
  });

  it('release-approval: auto-approve takes the first edge', async () => {
    const { result } = await runDot(example('release-approval.dot'), {
      backend: createSimulationBackend(),
      interviewer: createAutoApproveInterviewer(),
    });
    expect(result.completedNodes).toEqual(['start', 'draft', 'approve', 'publish', 'exit']);
    expect(result.context.get('human.gate.label')).toBe('[A] Approve and publish');
  });

  it('triage-routing: the scripted classifier says bug, the tests pass, so it asks for details', async () => {
    const script = await loadSimulationScript(join(pipelines, 'triage-routing.simulate.json'));
    const { result } = await runDot(example('triage-routing.dot'), {
      backend: createSimulationBackend({ script }),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'classify', 'reproduce', 'needs_info', 'exit']);
    expect(result.context.get('tool.exit_code')).toBe(0);
  });

  it('triage-routing: failing tests route to write_fix instead of failing the run (issue 19 bug 10)', async () => {
    const script = await loadSimulationScript(join(pipelines, 'triage-routing.simulate.json'));
    // A working directory whose test fails: `node --test` exits non-zero.
    const workdir = tempDir();
    writeFileSync(join(workdir, 'slug.test.js'), "throw new Error('slugify drops accents');\n");
    const { result } = await runDot(example('triage-routing.dot'), {
      backend: createSimulationBackend({ script }),
      workdir,
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'classify', 'reproduce', 'write_fix', 'exit']);
    expect(result.context.get('tool.exit_code')).not.toBe(0);
  });

  it('triage-routing: without a script the classifier succeeds and the question route is taken', async () => {
    const { result } = await runDot(example('triage-routing.dot'), { backend: createSimulationBackend() });
    expect(result.completedNodes).toEqual(['start', 'classify', 'answer', 'exit']);
  });

  it('sprint-supervisor: the manager loop runs sprint-child.dot to completion, then debriefs', async () => {
    const { result, logsRoot } = await runDot(example('sprint-supervisor.dot'), {
      backend: createSimulationBackend(),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'supervise', 'debrief', 'exit']);
    expect(result.context.get('stack.child.completed_nodes')).toEqual(['start', 'implement', 'test', 'exit']);
    expect(readText(join(logsRoot, 'supervise', 'child', 'test', 'stdout.txt'))).toMatch(/(?:#|ℹ) fail 0/);
  });

  it('ship-with-checks: checks-core.dot runs twice as a sub-pipeline, quick then full, before packaging', async () => {
    const { result, logsRoot } = await runDot(example('ship-with-checks.dot'), {
      backend: createSimulationBackend(),
      workdir: sampleProject(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'baseline', 'change', 'checks', 'package', 'exit']);
    // var.depth="quick" reached the first child only: it skipped the unit tests.
    expect(
      readJson<{ completed_nodes: string[] }>(join(logsRoot, 'baseline', 'child', 'checkpoint.json'))
        .completed_nodes,
    ).toEqual(['start', 'syntax', 'depth', 'docs', 'exit']);
    expect(readText(join(logsRoot, 'checks', 'child', 'tests', 'stdout.txt'))).toMatch(/(?:#|ℹ) fail 0/);
    expect(result.context.get('depth')).toBeUndefined();
    expect(readText(join(logsRoot, 'package', 'stdout.txt'))).toContain('packaged 2 files into');
  });

  it('checks-core: runs on its own, full depth', async () => {
    const { result } = await runDot(example('checks-core.dot'), { workdir: sampleProject() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'syntax', 'depth', 'tests', 'docs', 'exit']);
  });
});

/** The branch ids of the `## <id> (<status>)` headings of a fan-in prompt, in order. */
function branchIds(prompt: string): string[] {
  return [...prompt.matchAll(/^## (\S+) \(/gm)].map((match) => match[1]!);
}
