/**
 * No symbolic link leads a read out of the runs directory (issue 34 §13): not in the runs list, not in a run's event
 * replay (child runs included), not on the `?child=` routes. Real run directories written by the engine, real
 * symbolic links to real files outside.
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/index.js';
import { openEvents, startTestServer, type TestServer } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What the files outside hold: no response may contain it. */
const STOLEN = 'stolen-from-outside';

const parentDot = `digraph Parent {
  goal="the parent's own goal"
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  checks [type="subgraph", graph_ref="child.dot"]
  start -> checks -> exit
}
`;

const childDot = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  review [prompt="Review the change"]
  start -> review -> exit
}
`;

/**
 * A runs directory holding `parent-run` (a finished run of the engine with the child run `checks/child`), and a
 * directory outside it holding a copy of that run whose files all say {@link STOLEN}.
 */
async function layout() {
  const root = await mkdtemp(join(tmpdir(), 'attractor-server-links-'));
  const runsDir = join(root, 'runs');
  const outside = join(root, 'outside');
  const workdir = join(root, 'work');
  await mkdir(workdir);
  await writeFile(join(root, 'parent.dot'), parentDot);
  await writeFile(join(root, 'child.dot'), childDot);
  const result = await runPipeline({
    graph: prepareGraph(parentDot, { filename: join(root, 'parent.dot') }).graph!,
    registry: createDefaultRegistry(),
    backend: createSimulationBackend(),
    logsRoot: join(runsDir, 'parent-run'),
    sourcePath: join(root, 'parent.dot'),
    workdir,
  });
  expect(result.status).toBe('success');
  // The outside copy: a whole run (and child run) whose every file holds the marker.
  await cp(join(runsDir, 'parent-run'), outside, { recursive: true });
  for (const dir of [outside, join(outside, 'checks', 'child')]) {
    for (const name of ['manifest.json', 'checkpoint.json', 'events.jsonl']) {
      const path = join(dir, name);
      await writeFile(path, (await readFile(path, 'utf8')).replaceAll('Review the change', STOLEN));
    }
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, goal: STOLEN }));
    const checkpoint = JSON.parse(await readFile(join(dir, 'checkpoint.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    checkpoint.context.stolen = STOLEN;
    await writeFile(join(dir, 'checkpoint.json'), JSON.stringify(checkpoint));
    const events = (await readFile(join(dir, 'events.jsonl'), 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(events.at(-1)!) as { seq: number; timestamp: string; runId: string };
    events.push(JSON.stringify({ ...last, seq: last.seq + 1, type: 'log', level: 'info', message: STOLEN }));
    await writeFile(join(dir, 'events.jsonl'), `${events.join('\n')}\n`);
  }
  return { root, runsDir, outside, workdir };
}

async function bodyOf(response: Response): Promise<string> {
  return `${response.status} ${await response.text()}`;
}

describe('symbolic links out of the runs directory (issue 34 §13)', () => {
  it('lists neither a linked run directory nor the goal of a linked manifest', async () => {
    const { runsDir, outside } = await layout();
    // A run directory that is a link to the directory outside.
    await symlink(outside, join(runsDir, 'linked-run'));
    // A real run directory whose manifest.json is a link to the manifest outside.
    await mkdir(join(runsDir, 'linked-manifest'));
    await symlink(join(outside, 'manifest.json'), join(runsDir, 'linked-manifest', 'manifest.json'));
    // A real run directory whose events.jsonl is a link (its last event would be the list's failure reason).
    await cp(join(runsDir, 'parent-run'), join(runsDir, 'linked-events'), { recursive: true });
    await rm(join(runsDir, 'linked-events', 'events.jsonl'));
    await symlink(join(outside, 'events.jsonl'), join(runsDir, 'linked-events', 'events.jsonl'));
    server = await startTestServer({ runsDir });
    const response = await server.call('/pipelines');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(STOLEN);
    const ids = (JSON.parse(text) as { pipelines: RunSummary[] }).pipelines.map((run) => run.id);
    expect(ids).toContain('parent-run');
    expect(ids).not.toContain('linked-run');
    expect(ids).not.toContain('linked-manifest');
    for (const id of ['linked-run', 'linked-manifest']) {
      expect(await bodyOf(await server.call(`/pipelines/${id}`))).toMatch(/^404 /);
    }
    expect(await bodyOf(await server.call('/pipelines/linked-events')), 'details').not.toContain(STOLEN);
    const events = await openEvents(server, 'linked-events');
    await events.ended;
    expect(JSON.stringify(events.messages)).not.toContain(STOLEN);
  });

  it("does not replay the events of a linked child run in its parent's event stream", async () => {
    const { runsDir, outside } = await layout();
    // The child run directory replaced by a link to the outside copy of it.
    await rm(join(runsDir, 'parent-run', 'checks', 'child'), { recursive: true });
    await symlink(join(outside, 'checks', 'child'), join(runsDir, 'parent-run', 'checks', 'child'));
    // And a stage directory that is a link to a directory holding a child run.
    await symlink(join(outside, 'checks'), join(runsDir, 'parent-run', 'elsewhere'));
    server = await startTestServer({ runsDir });
    const events = await openEvents(server, 'parent-run');
    await events.ended;
    expect(events.messages.some((message) => message.event === 'end')).toBe(true);
    expect(events.events().length).toBeGreaterThan(0);
    expect(JSON.stringify(events.messages)).not.toContain(STOLEN);
    for (const path of [
      '/pipelines/parent-run?child=checks/child',
      '/pipelines/parent-run/events?child=checks/child',
      '/pipelines/parent-run/checkpoint?child=checks/child',
      '/pipelines/parent-run/context?child=checks/child',
      '/pipelines/parent-run/checkpoint?child=elsewhere/child',
    ]) {
      const text = await bodyOf(await server.call(path));
      expect(text, path).not.toContain(STOLEN);
      expect(text, path).toMatch(/^404 /);
    }
  });

  it('serves no file of a real child run directory that is a link leading out', async () => {
    const { runsDir, outside } = await layout();
    const child = join(runsDir, 'parent-run', 'checks', 'child');
    for (const name of ['checkpoint.json', 'events.jsonl', 'manifest.json']) {
      await rm(join(child, name));
      await symlink(join(outside, 'checks', 'child', name), join(child, name));
    }
    server = await startTestServer({ runsDir });
    for (const child of [undefined, 'checks/child']) {
      const events = await openEvents(server, 'parent-run', undefined, child);
      await events.ended;
      expect(JSON.stringify(events.messages), child).not.toContain(STOLEN);
    }
    for (const path of [
      '/pipelines/parent-run?child=checks/child',
      '/pipelines/parent-run/checkpoint?child=checks/child',
      '/pipelines/parent-run/context?child=checks/child',
      '/pipelines/parent-run/graph?child=checks/child',
    ]) {
      expect(await bodyOf(await server.call(path)), path).not.toContain(STOLEN);
    }
    // The parent run itself is still served whole.
    const details = await server.json<{ goal: string; state: string }>('/pipelines/parent-run');
    expect(details).toMatchObject({ goal: "the parent's own goal", state: 'success' });
  });
});
