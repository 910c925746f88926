// One benchmark worker process: startWorker on the PostgreSQL store and queue, built-in handlers, simulated LLM.
// Usage: node bench-worker.mjs <postgres url> <workdir root> <concurrency>
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { startWorker } from '@attractor/worker';

const [url, workdirRoot, concurrency] = process.argv.slice(2);
const catalog = createPostgresRunCatalog({ connectionString: url });
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
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => catalog.close())
    .then(() => process.exit(0));
});
