import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryRunStore, createScriptedInterviewer } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { graphFrom, runDot, tempDir, writeDot } from './helpers.js';

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString();

const child = `digraph Child {
  graph [goal="child goal"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  implement [prompt="implement"]
  start -> implement -> exit
}`;

/** Every built-in handler in one run: tool, codergen, parallel + fan-in, wait.human, subgraph and manager loop. */
const everyHandler = `digraph Everything {
  graph [goal="exercise every handler"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  tool [shape=parallelogram, tool_command="echo out-line; echo err-line >&2; printf '{\\"outcome\\":\\"success\\",\\"notes\\":\\"from the tool\\"}' > \\"$ATTRACTOR_STAGE_DIR/status.json\\""]
  plan [prompt="plan the work"]
  fan [shape=component]
  a [shape=parallelogram, tool_command="echo branch-a-output"]
  b [prompt="branch b"]
  merge [shape=tripleoctagon]
  gate [shape=hexagon, label="Ship it?"]
  sub [type="subgraph", graph_ref="child.dot"]
  supervise [shape=house, stack.child_dotfile="child.dot", manager.poll_interval="20ms"]
  start -> tool -> plan -> fan
  fan -> a
  fan -> b
  a -> merge
  b -> merge
  merge -> gate
  gate -> sub [label="[Y] Yes"]
  gate -> exit [label="[N] No"]
  sub -> supervise -> exit
}`;

describe('the built-in handlers with the in-memory run store (issue 17 §3)', () => {
  it('run a pipeline using every handler without a run directory, keeping their files in the store', async () => {
    const dir = tempDir();
    writeDot(dir, 'child.dot', child);
    const path = writeDot(dir, 'everything.dot', everyHandler);
    const store = createMemoryRunStore('/memory/everything');
    const interviewer = createScriptedInterviewer(['Y']);
    const logsRoot = join(dir, 'never-created');
    const { result } = await runDot(graphFrom(everyHandler, path), {
      logsRoot,
      workdir: dir,
      backend: createSimulationBackend(),
      interviewer,
      createRunStore: () => store,
    });
    expect(result.failureReason).toBeUndefined();
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'tool',
      'plan',
      'fan',
      'merge',
      'gate',
      'sub',
      'supervise',
      'exit',
    ]);
    expect(existsSync(logsRoot)).toBe(false);

    // tool: output appended live through the store, status.json written by the command into its real directory.
    expect(text(await store.readStageFile('tool', 'stdout.txt'))).toBe('out-line\n');
    expect(text(await store.readStageFile('tool', 'stderr.txt'))).toBe('err-line\n');
    expect(await store.readStageStatus('tool')).toMatchObject({ outcome: 'success', notes: 'from the tool' });
    // codergen with the simulation backend.
    expect(text(await store.readStageFile('plan', 'prompt.md'))).toContain('plan the work');
    expect(text(await store.readStageFile('plan', 'response.md'))).toBeDefined();
    // parallel branches are nested stages, and the fan-in read their outputs through the store.
    expect(await store.listStages()).toEqual(
      expect.arrayContaining([
        'fan',
        'fan/branches/a/a',
        'fan/branches/b/b',
        'gate',
        'merge',
        'sub',
        'supervise',
      ]),
    );
    expect(text(await store.readStageFile('fan', 'branches/a/a/stdout.txt'))).toBe('branch-a-output\n');
    const results = result.context.get('parallel.results') as { branch: string; output?: string }[];
    expect(results.find((entry) => entry.branch === 'a')?.output).toBe('branch-a-output\n');
    // wait.human asked the interviewer.
    expect(interviewer.questions.map((question) => question.text)).toEqual(['Ship it?']);
    // subgraph and manager loop ran their children in child stores of this run.
    for (const stage of ['sub', 'supervise']) {
      const childRun = store.child(`${stage}/child`);
      expect(childRun.manifest?.graph_name).toBe('Child');
      expect(childRun.checkpoints.at(-1)?.state).toBe('success');
      expect(text(await childRun.readStageFile('implement', 'prompt.md'))).toContain('implement');
    }
    expect(store.manifest?.graph_name).toBe('Everything');
  });
});
