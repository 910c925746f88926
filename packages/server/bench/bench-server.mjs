// A server in its own process for the web-UI benchmark (its memory is measured alone): the built package, LLM
// stages that take BENCH_STAGE_MS each (default 0: the simulation backend). Prints {"url","token"} on stdout.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../dist/index.js';

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
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
