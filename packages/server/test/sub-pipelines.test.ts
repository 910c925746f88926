/**
 * Sub-pipeline nodes (spec §9.4) of pipelines started from the pipelines directory: their `graph_ref` files are
 * validated before the run starts, as `attractor run` does, and found next to the parent file when they run.
 */
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetails } from '../src/index.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ErrorBody = {
  error: { code: string; message: string; diagnostics?: { rule: string; span?: { filename?: string } }[] };
};

const parent = (ref: string) => `digraph Parent {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  checks [type="subgraph", graph_ref="${ref}"]
  start -> checks -> exit
}
`;

const child = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  review [prompt="Review the change"]
  start -> review -> exit
}
`;

/** A root with `pipelines/` (holding `files`) and an empty `work/` used as the runs' working directory. */
async function layout(files: Readonly<Record<string, string>>) {
  const root = await mkdtemp(join(tmpdir(), 'attractor-server-subgraph-'));
  const pipelinesDir = join(root, 'pipelines');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(pipelinesDir, name, '..'), { recursive: true });
    await writeFile(join(pipelinesDir, name), text);
  }
  const workdir = join(root, 'work');
  await mkdir(workdir);
  return { root, pipelinesDir, workdir };
}

async function start(file: string): Promise<{ status: number; body: ErrorBody & { id?: string } }> {
  const response = await server!.call('/pipelines', { method: 'POST', json: { file, simulate: true } });
  return { status: response.status, body: (await response.json()) as ErrorBody & { id?: string } };
}

describe('sub-pipelines of the pipelines directory (spec §9.4)', () => {
  it('refuses a pipeline whose graph_ref file does not exist with 400 at file:line:col, and creates no run', async () => {
    const { pipelinesDir, workdir } = await layout({ 'main/pipeline.dot': parent('../checks/pipeline.dot') });
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_PIPELINE');
    expect(body.error.message).toContain(
      `main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": graph_ref "../checks/pipeline.dot" does not exist (looked for ${join(pipelinesDir, 'checks', 'pipeline.dot')}).`,
    );
    expect(body.error.diagnostics?.map((diagnostic) => diagnostic.rule)).toEqual(['subgraph_ref']);
    expect(body.error.diagnostics?.[0]?.span?.filename).toBe('main/pipeline.dot');
    expect(await readdir(server.runsDir)).toEqual([]);
  });

  it('refuses a graph_ref that is invalid itself, quoting its first error', async () => {
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child.replace('review -> exit', 'review -> exti'),
    });
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.message).toContain(
      `main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": the sub-pipeline "../checks/pipeline.dot" has 1 error; the first: ${join(pipelinesDir, 'checks', 'pipeline.dot')}:5:`,
    );
    expect(body.error.message).toContain('Did you mean "exit"?');
  });

  it('refuses a graph_ref outside the pipelines directory without reading it', async () => {
    const { root, pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../../outside.dot'),
    });
    await writeFile(join(root, 'outside.dot'), child);
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.message).toContain(
      `Subgraph node "checks": graph_ref "../../outside.dot" cannot be read (${join(root, 'outside.dot')}: it is outside the pipelines directory; this server runs sub-pipelines only from ${pipelinesDir}).`,
    );
  });

  it('runs a valid sub-pipeline from next to the parent file, whatever the working directory', async () => {
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child,
    });
    // A subgraph node may run tools of its child, which only a server with --allow-tools accepts.
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true });
    const { status, body } = await start('main/pipeline.dot');
    expect(status, JSON.stringify(body)).toBe(201);
    const details = await waitFor(async () => {
      const run = await server!.json<RunDetails>(`/pipelines/${body.id}`);
      return run.state === 'running' || run.state === 'waiting' ? undefined : run;
    }, 'the run to end');
    expect(details.failureReason).toBeUndefined();
    expect(details.state).toBe('success');
    expect(details.completedNodes).toEqual(['start', 'checks', 'exit']);
  });
});
