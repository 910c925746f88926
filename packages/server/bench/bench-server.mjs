// A server in its own process for the benchmarks (its memory is measured alone): the built package (or the build
// BENCH_SERVER_MODULE names, e.g. a base checkout's packages/server/dist/index.js), LLM stages that take
// BENCH_STAGE_MS each (default 0: the simulation backend). Prints {"url","token"} on stdout. On SIGUSR2 it collects
// garbage (when started with --expose-gc) and prints its memory as one JSON line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const module = process.env.BENCH_SERVER_MODULE;
const { startServer } = await import(
  module === undefined ? new URL('../dist/index.js', import.meta.url).href : pathToFileURL(module).href
);
const stageMs = Number(process.env.BENCH_STAGE_MS ?? '0');
const server = await startServer({
  runsDir: process.env.BENCH_RUNS_DIR ?? mkdtempSync(join(tmpdir(), 'attractor-bench-')),
  ...(stageMs > 0
    ? {
        backendFactory: () => ({
          run: (request) =>
            new Promise((resolve) => setTimeout(() => resolve(`done ${request.node.id}`), stageMs)),
        }),
        simulation: 'always',
      }
    : {}),
});
process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token })}\n`);
process.on('SIGUSR2', () => {
  for (let round = 0; round < 3; round++) globalThis.gc?.();
  const memory = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ memory })}\n`);
});
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
