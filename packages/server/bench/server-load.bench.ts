/**
 * Server load benchmark (issues 34 §11 and 35): a burst of POSTs, the latency of GETs meanwhile, the POST median,
 * 100 runs brought to a human gate, the memory each waiting run holds, and a large valid pipeline beside GETs. The
 * server runs in its own process (bench-server.mjs), a fresh one per scenario.
 *
 * Side by side: with ATTRACTOR_BENCH_BASE_SERVER set to another build's `packages/server/dist/index.js` (e.g. a
 * checkout of the base commit, `pnpm install && pnpm turbo run build --filter=@attractor/server...`), or to several as
 * `label=path,label=path`, every scenario runs against each build, one after the other, in one run. BENCH_ROUNDS
 * repeats the whole (default 1); BENCH_BURST sets the burst size (default 200); BENCH_SETTLE_MS how long after a burst
 * the RSS is read again (default 25000); BENCH_SCENARIOS runs only some scenarios (first words: `POST,burst,gates,large`).
 *
 * Run: `pnpm --filter @attractor/server bench` (after `pnpm build`). Prints a table; writes nothing to git.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, describe, it } from 'vitest';
import { gatePipeline, realisticPipeline } from './bench-pipelines.js';

interface Target {
  readonly label: string;
  /** The server module, or undefined for this package's build. */
  readonly module?: string;
}

/** This build, and the builds ATTRACTOR_BENCH_BASE_SERVER names: a path, or `label=path` entries separated by commas. */
const targets: Target[] = [
  { label: 'this build' },
  ...(process.env.ATTRACTOR_BENCH_BASE_SERVER ?? '')
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const at = entry.indexOf('=');
      return at === -1
        ? { label: 'base', module: entry.trim() }
        : { label: entry.slice(0, at).trim(), module: entry.slice(at + 1).trim() };
    }),
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '1');
const BURST = Number(process.env.BENCH_BURST ?? '200');
/** How long after a burst the RSS is read again (V8 returns its grown heap when idle), in ms. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? '25000');
/** The scenarios to run (BENCH_SCENARIOS, comma-separated names): default all. */
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? '').split(',').filter((name) => name.trim() !== '');

interface BenchServer {
  readonly process: ChildProcess;
  rssMb(): number;
  /** Whether the server process still runs. */
  alive(): boolean;
  /** The server's memory after three full garbage collections. */
  memory(): Promise<NodeJS.MemoryUsage>;
  call(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

async function startBenchServer(target: Target): Promise<BenchServer> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', new URL('./bench-server.mjs', import.meta.url).pathname],
    {
      env: {
        ...process.env,
        ...(target.module === undefined ? {} : { BENCH_SERVER_MODULE: target.module }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: Interface = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return {
    process: child,
    rssMb: () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
      } catch {
        return 0; // the process has exited
      }
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    async memory() {
      const answer = once(lines, 'line');
      child.kill('SIGUSR2');
      const [text] = (await answer) as [string];
      return (JSON.parse(text) as { memory: NodeJS.MemoryUsage }).memory;
    },
    call: (path, init = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      }),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** POSTs a pipeline; a request that fails (the connection reset or refused) answers with status 0. */
async function postRun(
  server: BenchServer,
  dot: string,
): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  try {
    const response = await server.call('/pipelines', { method: 'POST', body: JSON.stringify({ dot }) });
    const body = await response.text();
    return { status: response.status, ms: performance.now() - started, body };
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code ?? 'failed';
    return { status: 0, ms: performance.now() - started, body: `{"code":"${code}"}` };
  }
}

/** GETs `path` one after the other until `stop` resolves (or the server exits); their latencies in ms. */
async function pollLatencies(server: BenchServer, path: string, stop: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  while (!done && server.alive()) {
    const started = performance.now();
    try {
      const response = await server.call(path);
      await response.arrayBuffer();
    } catch {
      // A failed request counts for as long as it took (the connection was reset or refused).
    }
    latencies.push(performance.now() - started);
    await sleep(20);
  }
  return latencies;
}

async function listRuns(server: BenchServer): Promise<{ state: string; live: boolean }[]> {
  return (
    (await (await server.call('/pipelines')).json()) as { pipelines: { state: string; live: boolean }[] }
  ).pipelines;
}

async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

type Row = Record<string, string>;
const results = new Map<string, Map<string, string[]>>();
function record(target: Target, measure: string, value: string): void {
  const byTarget = results.get(measure) ?? new Map<string, string[]>();
  results.set(measure, byTarget);
  const values = byTarget.get(target.label) ?? [];
  values.push(value);
  byTarget.set(target.label, values);
}

afterAll(() => {
  const header = ['measure', ...targets.map((target) => target.label)];
  const rows: Row[] = [];
  for (const [measure, byTarget] of results) {
    rows.push(
      Object.fromEntries([
        ['measure', measure],
        ...targets.map((target) => [target.label, (byTarget.get(target.label) ?? []).join(' / ')]),
      ]),
    );
  }
  const widths = header.map((column) =>
    Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, index) => cell.padEnd(widths[index]!)).join(' | ')} |`;
  console.info(
    `\n${[line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(header.map((column) => row[column] ?? '')))].join('\n')}\n`,
  );
});

const realistic = realisticPipeline(1);
const large = realisticPipeline(330);

async function postMedian(target: Target): Promise<void> {
  const server = await startBenchServer(target);
  try {
    // One POST at a time on an otherwise idle server (each run ends before the next POST): each a pipeline of its own
    // (its own goal, so parsed), then the same one again (a server may keep the graph of a pipeline it has seen).
    const timedPost = async (dot: string): Promise<number> => {
      const answer = await postRun(server, dot);
      if (answer.status !== 201) throw new Error(`POST refused: ${answer.status} ${answer.body}`);
      const { id } = JSON.parse(answer.body) as { id: string };
      await until(
        async () => !((await (await server.call(`/pipelines/${id}`)).json()) as { live: boolean }).live,
        'the run to end',
      );
      return answer.ms;
    };
    for (let index = 0; index < 5; index++) await timedPost(realisticPipeline(1, `warm-up ${index}`));
    const distinct: number[] = [];
    for (let index = 0; index < 40; index++)
      distinct.push(await timedPost(realisticPipeline(1, `goal ${index}`)));
    const same: number[] = [];
    for (let index = 0; index < 40; index++) same.push(await timedPost(realistic));
    record(
      target,
      'POST /pipelines, 17 nodes, one at a time, each a new pipeline: median (p95)',
      `${percentile(distinct, 0.5).toFixed(1)} ms (${percentile(distinct, 0.95).toFixed(0)})`,
    );
    record(
      target,
      'POST /pipelines, the same 17-node pipeline again: median (p95)',
      `${percentile(same, 0.5).toFixed(1)} ms (${percentile(same, 0.95).toFixed(0)})`,
    );
  } finally {
    await server.close();
  }
}

async function burst(target: Target): Promise<void> {
  const server = await startBenchServer(target);
  let sampler: NodeJS.Timeout | undefined;
  try {
    await postRun(server, realistic);
    await sleep(500);
    const before = await server.memory();
    const idle = server.rssMb();
    let peak = idle;
    sampler = setInterval(() => {
      peak = Math.max(peak, server.rssMb());
    }, 50);
    const started = performance.now();
    const posts = Promise.all(
      Array.from({ length: BURST }, (_, index) => postRun(server, realisticPipeline(1, `burst ${index}`))),
    );
    const [answers, listLatencies, serverLatencies] = await Promise.all([
      posts,
      pollLatencies(server, '/pipelines', posts),
      pollLatencies(server, '/server', posts),
    ]);
    const burstMs = performance.now() - started;
    const statuses = new Map<string, number>();
    for (const answer of answers) {
      const key =
        answer.status === 201 ? '201' : `${answer.status} ${/"code":"(\w+)"/.exec(answer.body)?.[1] ?? ''}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
    const latencies = (values: number[]) =>
      values.length === 0
        ? 'none answered'
        : `${percentile(values, 0.5).toFixed(0)} / ${percentile(values, 0.95).toFixed(0)} / ${Math.max(...values).toFixed(0)} ms`;
    record(
      target,
      `${BURST} POSTs at once: answers`,
      [...statuses].map(([key, count]) => `${count}× ${key}`).join(', '),
    );
    record(target, `${BURST} POSTs at once: all answered after`, `${(burstMs / 1000).toFixed(1)} s`);
    record(target, 'GET /pipelines during the burst: p50 / p95 / max', latencies(listLatencies));
    record(target, 'GET /server during the burst: p50 / p95 / max', latencies(serverLatencies));
    if (!server.alive()) {
      record(
        target,
        'server after the burst',
        `exited (${server.process.exitCode ?? server.process.signalCode})`,
      );
      return;
    }
    try {
      await until(async () => (await listRuns(server)).every((run) => !run.live), 'the runs to end');
    } catch (error) {
      // A build that stops answering (a GET that times out) is reported, and the other builds still run.
      record(target, 'server after the burst', `not answering: ${(error as Error).message}`);
      return;
    }
    clearInterval(sampler);
    await sleep(5_000);
    const after = await server.memory();
    // V8 gives back the pages of a heap that grew in the burst once the server is idle (its memory reducer), not at
    // once: the RSS is read again later, without a forced collection.
    await sleep(SETTLE_MS);
    const settled = server.rssMb();
    const later = await server.memory();
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    const heapMb = (memory: NodeJS.MemoryUsage) => mb(memory.heapUsed + memory.external);
    record(
      target,
      `server RSS: idle → peak in the burst → 5 s → ${SETTLE_MS / 1000 + 5} s after the runs ended`,
      `${idle.toFixed(0)} → ${peak.toFixed(0)} → ${mb(after.rss)} → ${settled.toFixed(0)} MB`,
    );
    record(
      target,
      'server V8 heap committed (heapTotal): before → 5 s after → later',
      `${mb(before.heapTotal)} → ${mb(after.heapTotal)} → ${mb(later.heapTotal)} MB`,
    );
    record(
      target,
      `server heap + external after GC: before the burst → after the ${BURST} runs ended`,
      `${heapMb(before)} → ${heapMb(later)} MB (${((later.heapUsed + later.external - before.heapUsed - before.external) / BURST / 1024).toFixed(1)} KB per ended run)`,
    );
  } finally {
    clearInterval(sampler);
    await server.close();
  }
}

async function gates(target: Target): Promise<void> {
  const server = await startBenchServer(target);
  try {
    // Warm up with 20 runs at the gate, so both builds have their modules loaded and their code compiled.
    for (let index = 0; index < 20; index++) await postRun(server, gatePipeline);
    await until(
      async () => (await listRuns(server)).filter((run) => run.state === 'waiting').length === 20,
      'the warm-up runs',
    );
    const before = await server.memory();
    const started = performance.now();
    for (let index = 0; index < 100; index++) {
      const answer = await postRun(server, gatePipeline);
      if (answer.status !== 201) throw new Error(`POST refused: ${answer.status} ${answer.body}`);
    }
    await until(
      async () => (await listRuns(server)).filter((run) => run.state === 'waiting').length === 120,
      '100 runs at their gates',
    );
    const elapsed = performance.now() - started;
    const after = await server.memory();
    const perRun = (after: number, before: number) => ((after - before) / 100 / 1024 / 1024).toFixed(3);
    record(
      target,
      '100 runs started one after the other, all at their gates after',
      `${(elapsed / 1000).toFixed(2)} s`,
    );
    record(
      target,
      'memory per run waiting at a gate: heap + external (RSS)',
      `${perRun(after.heapUsed + after.external, before.heapUsed + before.external)} MB (${perRun(after.rss, before.rss)} MB)`,
    );
  } finally {
    await server.close();
  }
}

async function largePipeline(target: Target): Promise<void> {
  const server = await startBenchServer(target);
  try {
    await postRun(server, realistic);
    await sleep(500);
    const post = postRun(server, large);
    const [answer, latencies] = await Promise.all([post, pollLatencies(server, '/server', post)]);
    record(
      target,
      'POST of a valid 4,952-node pipeline: answer, time',
      `${answer.status === 0 ? `failed: ${answer.body}` : answer.status}, ${(answer.ms / 1000).toFixed(1)} s`,
    );
    record(
      target,
      'GET /server meanwhile: p95 / max',
      latencies.length === 0
        ? 'none answered'
        : `${percentile(latencies, 0.95).toFixed(0)} / ${Math.max(...latencies).toFixed(0)} ms`,
    );
  } finally {
    await server.close();
  }
}

describe('server load benchmark', () => {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, scenario] of [
      ['POST median', postMedian],
      ['burst', burst],
      ['gates', gates],
      ['large pipeline', largePipeline],
    ] as const) {
      if (SCENARIOS.length > 0 && !SCENARIOS.includes(name.split(' ')[0]!)) continue;
      it(`${name}, round ${round}`, async () => {
        for (const target of round % 2 === 1 ? targets : [...targets].reverse()) {
          record(target, `load average (1 min) at the start of: ${name}`, loadavg()[0]!.toFixed(1));
          await scenario(target);
        }
      }, 1_800_000);
    }
  }
});
