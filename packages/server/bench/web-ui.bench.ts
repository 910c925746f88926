/**
 * Web UI benchmark (issues "A web UI people would choose" and "Web UI, second round"): the time from opening a run
 * URL to the graph drawn with its statuses, for a finished 10-node and 500-node run and for a live 500-node run
 * (cold: a fresh browser profile and the run's first page; warm: again in the same browser); the bytes a browser
 * receives to open a finished 300-node run (bundle, SVG, JSON, event replay, as Chromium asks for them: gzip and
 * brotli accepted); and the server's memory while 20 pages watch 20 live runs. The server runs in its own process (bench-server.mjs) so its resident memory is measured alone.
 * Run: `pnpm --filter @attractor/server bench` (after `pnpm build`). Prints a table; writes nothing to git.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, describe, it } from 'vitest';
import { type BrowserSession, launchBrowser } from '../test/browser/browser-session.js';
import { chainPipeline } from '../test/browser/chain-pipeline.js';
import type { TestServer } from '../test/test-server.js';

interface BenchServer {
  readonly process: ChildProcess;
  readonly url: string;
  readonly token: string;
  rssMb(): number;
  startRun(dot: string): Promise<string>;
  json<T>(path: string): Promise<T>;
  close(): Promise<void>;
}

async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const child = spawn(process.execPath, [new URL('./bench-server.mjs', import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });
  return {
    process: child,
    url,
    token,
    rssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    async startRun(dot) {
      const response = await call('/pipelines', { method: 'POST', body: JSON.stringify({ dot }) });
      return ((await response.json()) as { id: string }).id;
    },
    async json(path) {
      return (await (await call(path)).json()) as never;
    },
    async close() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

const rows: string[][] = [];
let browser: BrowserSession | undefined;
afterAll(async () => {
  await browser?.close();
  console.info(`\n${rows.map((row) => row.join(' | ')).join('\n')}\n`);
});

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('web UI benchmark', () => {
  it('opens a run URL and draws the graph with statuses (10 and 500 nodes)', async () => {
    const server = await startBenchServer();
    browser = await launchBrowser();
    try {
      for (const nodes of [10, 500]) {
        const id = await server.startRun(
          chainPipeline(nodes)
            .replace('go [shape=hexagon, label="Go?"]', 'go [prompt="go"]')
            .replace('[label="[G] Go"]', ''),
        );
        await waitUntil(
          async () => (await server.json<{ live: boolean }>(`/pipelines/${id}`)).live === false,
          'the run to end',
        );
        const times: number[] = [];
        for (let repeat = 0; repeat < 5; repeat++) {
          const started = Date.now();
          const page = await browser.open(server as unknown as TestServer, `/runs/${encodeURIComponent(id)}`);
          await page.locator('#graph[data-loaded] g#node-done.status-success').waitFor({ timeout: 120_000 });
          times.push(Date.now() - started);
          await page.close();
        }
        rows.push([
          `open run URL → graph with statuses, ${nodes} nodes (median of 5)`,
          `${median(times)} ms`,
          `runs: ${times.join(', ')} ms`,
        ]);
      }
    } finally {
      await server.close();
    }
  }, 600_000);

  it('opens a live 500-node run page (cold, then warm) until the graph shows its statuses', async () => {
    const server = await startBenchServer();
    const cold = await launchBrowser();
    try {
      // Half the chain done, then a gate the run waits at: a live run whose page shows 248 stages done.
      const pipeline = chainPipeline(500)
        .replace('go [shape=hexagon, label="Go?"]', 'go [prompt="go"]')
        .replace('[label="[G] Go"]', '')
        .replace(' -> s249 -> ', ' -> half -> s249 -> ')
        .replace('  done [shape=Msquare]', '  half [shape=hexagon, label="Half?"]\n  done [shape=Msquare]');
      const id = await server.startRun(pipeline);
      await waitUntil(
        async () => (await server.json<{ state: string }>(`/pipelines/${id}`)).state === 'waiting',
        'the run to wait at its gate',
      );
      const open = async (session: BrowserSession) => {
        const started = Date.now();
        const page = await session.open(server as unknown as TestServer, `/runs/${encodeURIComponent(id)}`);
        await page.locator('#graph[data-loaded] g#node-half.status-waiting').waitFor({ timeout: 120_000 });
        await page.locator('#graph[data-loaded] g#node-s248.status-success').waitFor({ timeout: 120_000 });
        const elapsed = Date.now() - started;
        await page.close();
        return elapsed;
      };
      const first = await open(cold);
      const warm: number[] = [];
      for (let repeat = 0; repeat < 5; repeat++) warm.push(await open(cold));
      rows.push([
        'open a live 500-node run (248 stages done, waiting at a gate) → graph with statuses, cold',
        `${first} ms`,
        'fresh browser profile, first page of the run',
      ]);
      rows.push(['… warm (median of 5)', `${median(warm)} ms`, `runs: ${warm.join(', ')} ms`]);
    } finally {
      await cold.close();
      await server.close();
    }
  }, 600_000);

  it('bytes received to open a finished 300-node run page', async () => {
    const server = await startBenchServer();
    const fresh = await launchBrowser();
    try {
      const id = await server.startRun(
        chainPipeline(300)
          .replace('go [shape=hexagon, label="Go?"]', 'go [prompt="go"]')
          .replace('[label="[G] Go"]', ''),
      );
      await waitUntil(
        async () => (await server.json<{ live: boolean }>(`/pipelines/${id}`)).live === false,
        'the run to end',
      );
      const page = await fresh.context.newPage();
      const cdp = await fresh.context.newCDPSession(page);
      await cdp.send('Network.enable');
      const requests = new Map<
        string,
        { url: string; headers: number; body: number; decoded: number; total?: number; done?: boolean }
      >();
      cdp.on('Network.responseReceived', (event) => {
        requests.set(event.requestId, {
          url: event.response.url,
          headers: event.response.encodedDataLength,
          body: 0,
          decoded: 0,
        });
      });
      cdp.on('Network.dataReceived', (event) => {
        const entry = requests.get(event.requestId);
        if (entry === undefined) return;
        entry.body += event.encodedDataLength;
        entry.decoded += event.dataLength;
      });
      cdp.on('Network.loadingFinished', (event) => {
        const entry = requests.get(event.requestId);
        if (entry === undefined) return;
        entry.total = event.encodedDataLength;
        entry.done = true;
      });
      // A stream the page closes itself (after the replay's `end`) fails as cancelled: its bytes came all the same.
      cdp.on('Network.loadingFailed', (event) => {
        const entry = requests.get(event.requestId);
        if (entry !== undefined) entry.done = true;
      });
      await page.addInitScript(`sessionStorage.setItem('attractor.token', ${JSON.stringify(server.token)})`);
      await page.goto(`${server.url}/runs/${encodeURIComponent(id)}`);
      await page.locator('#graph[data-loaded] g#node-done.status-success').waitFor({ timeout: 120_000 });
      // The event replay of a finished run ends with its stream.
      await waitUntil(
        async () =>
          [...requests.values()].some(
            (entry) =>
              entry.url.includes(`/pipelines/`) && entry.url.includes('/events') && entry.done === true,
          ),
        'the event stream to end',
      );
      await page.close();
      const bytes = (entry: { headers: number; body: number; total?: number }) =>
        Math.max(entry.total ?? 0, entry.headers + entry.body);
      const byKind = new Map<string, number>();
      const decodedByKind = new Map<string, number>();
      for (const entry of requests.values()) {
        const path = new URL(entry.url).pathname;
        const kind = path.startsWith('/ui/assets/')
          ? `bundle ${path.slice(path.lastIndexOf('.') + 1)}`
          : path.replace(encodeURIComponent(id), '{id}').replace(id, '{id}');
        byKind.set(kind, (byKind.get(kind) ?? 0) + bytes(entry));
        decodedByKind.set(kind, (decodedByKind.get(kind) ?? 0) + entry.decoded);
      }
      const total = [...byKind.values()].reduce((sum, value) => sum + value, 0);
      rows.push([
        'bytes received to open a finished 300-node run (Chromium: gzip, br accepted)',
        `${(total / 1024).toFixed(0)} KB`,
        [...byKind]
          .map(
            ([kind, value]) =>
              `${kind} ${(value / 1024).toFixed(1)} KB (${((decodedByKind.get(kind) ?? 0) / 1024).toFixed(1)} KB decoded)`,
          )
          .join('; '),
      ]);
    } finally {
      await fresh.close();
      await server.close();
    }
  }, 600_000);

  it('server memory with 20 pages watching 20 live runs', async () => {
    const server = await startBenchServer({ BENCH_STAGE_MS: '400' });
    browser ??= await launchBrowser();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const idle = server.rssMb();
      const pipeline = chainPipeline(60)
        .replace('go [shape=hexagon, label="Go?"]', 'go [prompt="go"]')
        .replace('[label="[G] Go"]', '');
      const ids: string[] = [];
      for (let index = 0; index < 20; index++) ids.push(await server.startRun(pipeline));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const unwatched = server.rssMb();
      let peak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, server.rssMb());
      }, 200);
      const pages = await Promise.all(
        ids.map((id) => browser!.open(server as unknown as TestServer, `/runs/${encodeURIComponent(id)}`)),
      );
      const watching = (await server.json<{ pipelines: { live: boolean }[] }>('/pipelines')).pipelines.filter(
        (run) => run.live,
      ).length;
      await waitUntil(
        async () =>
          (await server.json<{ pipelines: { live: boolean }[] }>('/pipelines')).pipelines.every(
            (run) => !run.live,
          ),
        'the runs to end',
        300_000,
      );
      clearInterval(sampler);
      for (const page of pages) await page.close();
      rows.push(['server RSS, idle', `${idle.toFixed(0)} MB`, '']);
      rows.push([
        'server RSS, 20 live runs, nobody watching',
        `${unwatched.toFixed(0)} MB`,
        '60-node runs, 400 ms per stage',
      ]);
      rows.push([
        'server RSS peak, 20 pages watching 20 live runs',
        `${peak.toFixed(0)} MB`,
        `${(peak - unwatched).toFixed(0)} MB more; ${watching} runs still live when all pages were open`,
      ]);
    } finally {
      await server.close();
    }
  }, 600_000);
});
