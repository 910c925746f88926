/**
 * The engine's CodergenBackend conformance kit (CONTRIBUTING.md "Writing tests"), run against the real
 * backend and OpenAI client over HTTP to the scripted server.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCodergenBackendContract } from '@attractor/engine/test';
import { afterAll, beforeAll } from 'vitest';
import { createAiSdkBackend } from '../src/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../src/test/index.js';

let server: ScriptedOpenAIServer;
beforeAll(async () => {
  server = await startScriptedOpenAIServer({
    fallback: { type: 'text', text: 'Hello from the scripted model' },
  });
});
afterAll(async () => {
  await server.close();
});

describeCodergenBackendContract('createAiSdkBackend (Chat Completions over HTTP)', {
  createBackend: () => createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'k', defaultModel: 'gpt-test' }),
  request: async () => {
    const root = await mkdtemp(join(tmpdir(), 'backend-contract-'));
    return { stageDir: root, workdir: root };
  },
});
