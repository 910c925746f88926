#!/usr/bin/env node
// Responsiveness of the language server on a generated 10,000-node pipeline (issue 33): run with `pnpm bench` after a
// build. The server runs as `attractor lsp` does (test/fixtures/start-server.mjs, stdio), driven by
// vscode-languageserver-protocol's client connection.
//
// Each of ROUNDS rounds (default 3) starts a server, opens the file and types BURSTS bursts (default 3) of five quick
// edits (one every 30 ms) on the label of the last stage, waiting for the diagnostics of each burst's last version.
// Medians are printed; all rounds are written to bench-results/lsp-<timestamp>.json.
// - open → diagnostics: from didOpen to the diagnostics of version 1;
// - change → diagnostics: from a burst's last edit to the diagnostics of its version, for the first burst after the
//   open (a worker that has linted once) and for the later ones (a worker warmed by typing);
// - hover while linting: the round trip of hovers sent every 50 ms while a burst is being linted (the worker thread
//   keeps the server answering);
// - server CPU: the CPU time the server process (all threads) spent on a later burst, from its first edit to its
//   diagnostics, hovers included (Linux, from /proc; independent of the load, unlike the times);
// - lint CPU: the CPU time of `prepareGraph` (parse, transforms, every lint rule) of the text after a one-character
//   change, in this process, with the analysis worker's parse cache warmed by the text before the change and without
//   one (the fewest milliseconds of five: the closest to an idle machine);
// - phases of a change (first burst, later bursts): where the time from the last edit to the diagnostics goes, from
//   the server's `attractor-lsp:` measures (src/analysis-phase.ts): `to-server` (from the client's edit to the job's
//   posting to the worker), `to-worker`, `debounce` (the delay after the last change, and an older analysis still
//   running), `project`, `lint` (and `lintCpu`, the worker thread's CPU time of it), `convert`, `from-worker`,
//   `publish`, and `client` (from the written notification to the client having read it); `analyses` counts the
//   versions of the burst that were linted (1: the others were superseded before they started).
// BASELINE=<path of another build's dist/index.js> (for instance main's, copied) measures that build too, round by
// round alternately with this one, so that both see the same load (its phases are not measured).
// Target: diagnostics within 1 s of the last change, hovers within 50 ms while linting (see the package README).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createDotParseCache } from '@attractor/dot';
import { prepareGraph } from '@attractor/graph';
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { generatePipeline } from './generate-pipeline.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BURSTS = Number(process.env.BURSTS ?? 3);
const BASELINE = process.env.BASELINE;
const NODES = Number(process.env.NODES ?? 10_000);
const server = fileURLToPath(new URL('../test/fixtures/start-server.mjs', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'attractor-lsp-bench-'));
const file = join(directory, 'large.dot');
const text = generatePipeline(NODES);
writeFileSync(file, text);
const uri = pathToFileURL(file).href;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const builds = BASELINE === undefined ? { current: undefined } : { baseline: BASELINE, current: undefined };
const rounds = Object.fromEntries(Object.keys(builds).map((build) => [build, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [build, dist] of Object.entries(builds)) rounds[build].push(await measure(dist));
}
const lint = lintCpu();
const summary = Object.fromEntries(
  Object.entries(rounds).map(([build, measured]) => [
    build,
    {
      nodes: NODES,
      bytes: text.length,
      lintCpuAfterChangeMs: lint.cached,
      lintCpuWithoutCacheMs: lint.uncached,
      openToDiagnosticsMs: Math.round(median(measured.map((r) => r.openMs))),
      firstChangeToDiagnosticsMs: Math.round(median(measured.map((r) => r.bursts[0].changeMs))),
      laterChangeToDiagnosticsMs: Math.round(
        median(measured.flatMap((r) => r.bursts.slice(1).map((burst) => burst.changeMs))),
      ),
      laterServerCpuMs: Math.round(
        median(measured.flatMap((r) => r.bursts.slice(1).map((burst) => burst.serverCpuMs ?? Number.NaN))),
      ),
      hoverWhileLintingMedianMs: Math.round(median(measured.flatMap((r) => r.hoverMs))),
      hoverWhileLintingMaxMs: Math.round(Math.max(...measured.flatMap((r) => r.hoverMs))),
    },
  ]),
);
console.table(summary);
const phaseMedians = (bursts) =>
  Object.fromEntries(
    Object.keys(bursts[0].phases).map((phase) => [
      phase,
      Math.round(median(bursts.map((burst) => burst.phases[phase]))),
    ]),
  );
const phases = Object.fromEntries(
  Object.entries(rounds)
    .filter(([, measured]) => measured[0].bursts[0].phases !== undefined)
    .flatMap(([build, measured]) => [
      [`${build}, first change`, phaseMedians(measured.map((r) => r.bursts[0]))],
      ...(BURSTS > 1
        ? [[`${build}, later changes`, phaseMedians(measured.flatMap((r) => r.bursts.slice(1)))]]
        : []),
    ]),
);
if (Object.keys(phases).length > 0) {
  console.log('Phases from the last change to the diagnostics (medians, ms):');
  console.table(phases);
}
const results = new URL('../bench-results/', import.meta.url);
mkdirSync(results, { recursive: true });
writeFileSync(
  new URL(`lsp-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, results),
  `${JSON.stringify({ summary, phases, rounds }, null, 2)}\n`,
);

/** CPU milliseconds of `prepareGraph` of the changed text: with a warm parse cache, and without (fewest of 5). */
function lintCpu() {
  const cpuMs = (run) => {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const cache = createDotParseCache();
  const cached = [];
  const uncached = [];
  for (let round = 0; round < 5; round++) {
    prepareGraph(text, { filename: file, parseCache: cache });
    const changed = text.replace(
      `stage_${NODES - 1} [label="Stage`,
      `stage_${NODES - 1} [label="Round ${round} stage`,
    );
    cached.push(cpuMs(() => prepareGraph(changed, { filename: file, parseCache: cache })));
    uncached.push(cpuMs(() => prepareGraph(changed, { filename: file })));
  }
  return { cached: Math.round(Math.min(...cached)), uncached: Math.round(Math.min(...uncached)) };
}

/** One round against the build whose `dist/index.js` is `dist` (default: this package's). */
async function measure(dist) {
  const child = spawn(process.execPath, [server], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PHASES: '1', ...(dist === undefined ? {} : { SERVER_DIST: dist }) },
  });
  const measures = [];
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    let end = stderr.indexOf('\n');
    for (; end >= 0; end = stderr.indexOf('\n')) {
      const line = stderr.slice(0, end);
      stderr = stderr.slice(end + 1);
      if (line.startsWith('{"phase"')) measures.push(JSON.parse(line));
      else process.stderr.write(`${line}\n`);
    }
  });
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const waiting = new Map();
  let receivedAt = 0;
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    receivedAt = performance.timeOrigin + performance.now();
    waiting.get(params.version)?.();
  });
  const diagnosticsOf = (version) => new Promise((resolve) => waiting.set(version, resolve));
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(directory).href,
    capabilities: {},
  });
  await connection.sendNotification(InitializedNotification.type, {});

  let started = performance.now();
  const opened = diagnosticsOf(1);
  await connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'dot', version: 1, text },
  });
  await opened;
  const openMs = performance.now() - started;

  // Bursts of five edits 30 ms apart on the label of the last stage; after each, wait for its last version's
  // diagnostics while hovering.
  const line = 4 + NODES;
  const hoverMs = [];
  const bursts = [];
  for (let burst = 0; burst < BURSTS; burst++) {
    const first = 2 + burst * 5;
    const lastVersion = first + 4;
    const last = diagnosticsOf(lastVersion);
    const cpuBefore = serverCpuMs(child.pid);
    for (let version = first; version <= lastVersion; version++) {
      await connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: [
          {
            range: {
              start: { line, character: 16 },
              end: { line, character: 16 + String(version - 1).length },
            },
            text: String(version),
          },
        ],
      });
      started = performance.now();
      if (version < lastVersion) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    let linted = false;
    const lintedAt = last.then(() => {
      linted = true;
      return performance.now();
    });
    while (!linted) {
      const sent = performance.now();
      await connection.sendRequest(HoverRequest.type, {
        textDocument: { uri },
        position: { line, character: 4 },
      });
      hoverMs.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const changeMs = (await lintedAt) - started;
    const cpuAfter = serverCpuMs(child.pid);
    bursts.push({
      first,
      lastVersion,
      changeMs,
      serverCpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
      changedAt: performance.timeOrigin + started,
      receivedAt,
    });
  }
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  await new Promise((resolve) => child.once('exit', resolve));
  connection.dispose();
  for (const burst of bursts) {
    if (measures.length > 0) burst.phases = phasesOf(measures, burst);
  }
  return { openMs, bursts, hoverMs, measures };
}

/**
 * The CPU milliseconds the server process (every thread) has used so far, from /proc (Linux; `undefined` elsewhere),
 * in steps of the kernel's clock tick (10 ms at 100 Hz).
 */
function serverCpuMs(pid) {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  // utime and stime: fields 14 and 15 of stat(5), 12 and 13 after the command's closing parenthesis.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Where the time from a burst's last edit to its diagnostics went, from the server's measures. */
function phasesOf(measures, burst) {
  const ofLast = measures.filter((measure) => measure.version === burst.lastVersion);
  const duration = (phase) => {
    const measure = ofLast.find((entry) => entry.phase === phase);
    return measure === undefined ? 0 : measure.end - measure.start;
  };
  const posted = ofLast.find((entry) => entry.phase === 'to-worker');
  const published = ofLast.find((entry) => entry.phase === 'publish');
  return {
    'to-server': posted === undefined ? 0 : posted.start - burst.changedAt,
    ...Object.fromEntries(
      ['to-worker', 'debounce', 'project', 'lint'].map((phase) => [phase, duration(phase)]),
    ),
    lintCpu: ofLast.find((entry) => entry.phase === 'lint')?.cpu ?? 0,
    ...Object.fromEntries(['convert', 'from-worker', 'publish'].map((phase) => [phase, duration(phase)])),
    client: published === undefined ? 0 : burst.receivedAt - published.end,
    analyses: new Set(
      measures
        .filter(
          (measure) =>
            measure.phase === 'lint' &&
            measure.version >= burst.first &&
            measure.version <= burst.lastVersion,
        )
        .map((measure) => measure.version),
    ).size,
  };
}
