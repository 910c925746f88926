// One benchmark worker process: startWorker on the PostgreSQL store and queue, built-in handlers, simulated LLM.
// Usage: node [--expose-gc] bench-worker.mjs <postgres url> <workdir root> <concurrency>
// The run store is the PostgreSQL one; BENCH_STORE=directory puts runs in <workdir root>/.runs (the file store).
// Prints `ready <worker id>` once it takes jobs. A line `measure` on stdin answers with one JSON line: the process's
// memory after forced garbage collections (run with --expose-gc), the part of the V8 heap that is compiled code, and
// its active handles.
import { join } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { createFileRunCatalog } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { startWorker } from '@attractor/worker';

const [url, workdirRoot, concurrency] = process.argv.slice(2);
const catalog =
  process.env.BENCH_STORE === 'directory'
    ? createFileRunCatalog(join(workdirRoot, '.runs'))
    : createPostgresRunCatalog({ connectionString: url });
const worker = await startWorker({
  catalog,
  queueUrl: url,
  workdirRoot,
  concurrency: Number(concurrency ?? 1),
  pollingIntervalSeconds: 0.5,
  prepare: async (request) => {
    const { graph } = prepareGraph(request.source, {});
    return { graph, registry: createDefaultRegistry(), backend: createSimulationBackend() };
  },
});
process.stdout.write(`ready ${worker.id}\n`);

/** V8 spaces of compiled code and its metadata (bytecode, feedback): JIT warm-up, not objects a run left. */
const CODE_SPACES = ['code_space', 'code_large_object_space', 'trusted_space', 'trusted_large_object_space'];

async function measure() {
  for (let round = 0; round < 3; round += 1) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // What V8 does under memory pressure: also shrinks the young generation and returns its pooled pages, so that RSS
  // does not swing by tens of MB with the young generation's size.
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const memory = process.memoryUsage();
  const code = getHeapSpaceStatistics()
    .filter((space) => CODE_SPACES.includes(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  const handles = {};
  for (const name of process.getActiveResourcesInfo()) handles[name] = (handles[name] ?? 0) + 1;
  return { ...memory, heapCode: code, gc: globalThis.gc !== undefined, handles };
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
  let end = input.indexOf('\n');
  while (end >= 0) {
    const [command, argument] = input.slice(0, end).trim().split(' ');
    input = input.slice(end + 1);
    if (command === 'measure') {
      void measure().then((result) => process.stdout.write(`${JSON.stringify(result)}\n`));
    } else if (command === 'snapshot') {
      globalThis.gc?.();
      process.stdout.write(`${JSON.stringify({ snapshot: writeHeapSnapshot(argument) })}\n`);
    }
    end = input.indexOf('\n');
  }
});
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => catalog.close())
    .then(() => process.exit(0));
});
