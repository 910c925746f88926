#!/usr/bin/env node
// Overhead benchmark of @attractor/backend-ai-sdk (issue 15, "Benchmark"); run with `pnpm bench` after a build.
// A scripted OpenAI-compatible server on 127.0.0.1 answers every request at once. For streaming and not, the
// benchmark times 200 calls of the AI SDK alone (`streamText` / `generateText` with the same model object) and
// 200 stage runs of our backend (`backend.run`: model resolution, retry middleware, system prompt, prompt.md,
// transcript, response.md, usage and cost), each after 20 warm-up calls, and prints the medians and their
// difference: our overhead per LLM call. Target: < 5 ms. Writes bench-results/llm-call-<timestamp>.json (gitignored).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, '..');
const CALLS = 200;
const WARM_UP = 20;

const { createAiSdkBackend } = await import(path.join(packageDir, 'dist', 'index.js'));
const { startScriptedLlmServer } = await import(path.join(packageDir, 'dist', 'test', 'index.js'));
const { Context } = await import('@attractor/engine');
const { createTestGraph } = await import('@attractor/engine/test');
const { createOpenAI } = await import('@ai-sdk/openai');
const { generateText, streamText } = await import('ai');

globalThis.AI_SDK_LOG_WARNINGS = false;
const server = await startScriptedLlmServer({ fallback: { type: 'text', text: 'ok' } });
const root = mkdtempSync(path.join(tmpdir(), 'backend-bench-'));
const workdir = path.join(root, 'work');
mkdirSync(workdir);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/**
 * Times `sdk` and `ours` alternately, `CALLS` times each after `WARM_UP` rounds, so that load on a shared machine
 * hits both alike; the overhead is the median of the paired differences.
 */
async function compare(mode, sdk, ours) {
  for (let index = 0; index < WARM_UP; index++) {
    await sdk(index);
    await ours(index);
  }
  const sdkSamples = [];
  const ourSamples = [];
  const differences = [];
  for (let index = 0; index < CALLS; index++) {
    let started = performance.now();
    await sdk(index);
    const sdkMs = performance.now() - started;
    started = performance.now();
    await ours(index);
    const ourMs = performance.now() - started;
    sdkSamples.push(sdkMs);
    ourSamples.push(ourMs);
    differences.push(ourMs - sdkMs);
  }
  const result = {
    mode,
    sdkMedianMs: median(sdkSamples),
    oursMedianMs: median(ourSamples),
    overheadMedianMs: median(differences),
  };
  console.log(`AI SDK alone (${mode})`.padEnd(40), `median ${result.sdkMedianMs.toFixed(2).padStart(6)} ms`);
  console.log(
    `backend.run, tools="none" (${mode})`.padEnd(40),
    `median ${result.oursMedianMs.toFixed(2).padStart(6)} ms`,
  );
  console.log(
    `our overhead per call (${mode})`.padEnd(40),
    `median ${result.overheadMedianMs.toFixed(2).padStart(6)} ms (paired; target < 5 ms)`,
  );
  return result;
}

const graph = createTestGraph({
  nodes: [{ id: 'work', llmModel: 'gpt-bench', attrs: { tools: 'none' } }],
  edges: ['start -> work -> exit'],
});
const node = graph.node('work');
const stageDirs = Array.from({ length: 10 }, (_, index) => {
  const stageDir = path.join(root, 'logs', `run-${index}`, 'work');
  mkdirSync(stageDir, { recursive: true });
  return stageDir;
});
function request(index) {
  const stageDir = stageDirs[index % stageDirs.length];
  return {
    node,
    graph,
    prompt: 'Say ok.',
    context: new Context({}),
    fidelity: 'compact',
    threadKey: 'work',
    preamble: '',
    abortSignal: new AbortController().signal,
    stageDir,
    workdir,
    emit: () => {},
    takeSteering: async () => [],
  };
}

const sdkModel = createOpenAI({ apiKey: 'k', baseURL: server.baseURL }).chat('gpt-bench');
const results = [];
for (const streaming of [true, false]) {
  const backend = createAiSdkBackend({
    env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL },
    streaming,
  });
  const sdk = streaming
    ? async () => {
        const result = streamText({ model: sdkModel, prompt: 'Say ok.', maxRetries: 0 });
        for await (const _part of result.fullStream);
        await result.text;
      }
    : () => generateText({ model: sdkModel, prompt: 'Say ok.', maxRetries: 0 });
  results.push(
    await compare(streaming ? 'streaming' : 'not streaming', sdk, (index) => backend.run(request(index))),
  );
}
await server.close();

const out = path.join(packageDir, 'bench-results');
mkdirSync(out, { recursive: true });
const file = path.join(out, `llm-call-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ node: process.version, cpus: os.cpus().length, calls: CALLS, results }, null, 2)}\n`,
);
console.log(`results: ${path.relative(process.cwd(), file)}`);
