#!/usr/bin/env node
// Responsiveness of the language server on a generated 10,000-node pipeline (issue 33): run with `pnpm bench` after a
// build. The server runs as `attractor lsp` does (test/fixtures/start-server.mjs, stdio), driven by
// vscode-languageserver-protocol's client connection.
//
// Measured, each ROUNDS times (medians printed, all rounds written to bench-results/lsp-<timestamp>.json):
// - open → diagnostics: from didOpen to the diagnostics of version 1;
// - change → diagnostics: from the last of five quick edits (one every 30 ms, as typing) to the diagnostics of the
//   last version;
// - hover while linting: the round trip of hovers sent every 50 ms while the change is being linted (the worker
//   thread keeps the server answering).
// - lint CPU: the CPU time of `prepareGraph` (parse, transforms, every lint rule) of the text after a one-character
//   change, in this process, with the analysis worker's parse cache warmed by the text before the change and without
//   one (the fewest milliseconds of the rounds: the closest to an idle machine).
// Target: diagnostics within 1 s of the last change, hovers within 50 ms while linting (see the package README).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
const NODES = Number(process.env.NODES ?? 10_000);
const server = fileURLToPath(new URL('../test/fixtures/start-server.mjs', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'attractor-lsp-bench-'));
const file = join(directory, 'large.dot');
const text = generatePipeline(NODES);
writeFileSync(file, text);
const uri = pathToFileURL(file).href;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rounds = [];
for (let round = 0; round < ROUNDS; round++) rounds.push(await measure());
const lint = lintCpu();
const summary = {
  nodes: NODES,
  bytes: text.length,
  lintCpuAfterChangeMs: lint.cached,
  lintCpuWithoutCacheMs: lint.uncached,
  openToDiagnosticsMs: median(rounds.map((r) => r.openMs)),
  changeToDiagnosticsMs: median(rounds.map((r) => r.changeMs)),
  hoverWhileLintingMedianMs: median(rounds.flatMap((r) => r.hoverMs)),
  hoverWhileLintingMaxMs: Math.max(...rounds.flatMap((r) => r.hoverMs)),
};
console.table(summary);
const results = new URL('../bench-results/', import.meta.url);
mkdirSync(results, { recursive: true });
writeFileSync(
  new URL(`lsp-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, results),
  `${JSON.stringify({ summary, rounds }, null, 2)}\n`,
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

async function measure() {
  const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const waiting = new Map();
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
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

  // Five edits 30 ms apart on the label of the last stage, then wait for the last version's diagnostics.
  const line = 4 + NODES;
  const last = diagnosticsOf(6);
  for (let version = 2; version <= 6; version++) {
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [
        { range: { start: { line, character: 16 }, end: { line, character: 17 } }, text: String(version) },
      ],
    });
    started = performance.now();
    if (version < 6) await new Promise((resolve) => setTimeout(resolve, 30));
  }
  const hoverMs = [];
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
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  connection.dispose();
  return { openMs, changeMs, hoverMs };
}
