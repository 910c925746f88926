import { afterEach, describe, expect, it } from 'vitest';
import { openEvents, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KNOWN = 'hunter2-server-known-secret';
const SHAPED = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

describe('secret masking in responses (docs/architecture.md "Secrets", issue 20 §1)', () => {
  it('never sends a secret in /checkpoint, /context, run details, status files or the SSE stream', async () => {
    server = await startTestServer({ allowTools: true, secretValues: [KNOWN] });
    const dot = `digraph leak {
      start [shape=Mdiamond]
      print [shape=parallelogram, tool_command="echo ${KNOWN}; echo ${SHAPED} >&2"]
      done [shape=Msquare]
      start -> print -> done
    }`;
    const id = await server.startRun(dot, {
      context: { deploy_token: 'value-of-a-secret-named-key', note: `uses ${KNOWN}` },
    });
    const events = await openEvents(server, id);
    await events.ended;
    await waitFor(
      async () => (await server!.json<{ state: string }>(`/pipelines/${id}`)).state === 'success',
      'the run to complete',
    );
    const secrets = [KNOWN, SHAPED, 'value-of-a-secret-named-key'];
    const bodies: Record<string, string> = {
      checkpoint: await (await server.call(`/pipelines/${id}/checkpoint`)).text(),
      context: await (await server.call(`/pipelines/${id}/context`)).text(),
      details: await (await server.call(`/pipelines/${id}`)).text(),
      status: await (await server.call(`/pipelines/${id}/stages/print/status.json`)).text(),
      sse: JSON.stringify(events.messages),
    };
    expect(bodies.context).toContain('deploy_token');
    expect(bodies.status).toContain('[REDACTED]');
    expect(events.events().length).toBeGreaterThan(3);
    for (const [where, body] of Object.entries(bodies)) {
      for (const secret of secrets) expect(body, `${where} holds ${secret}`).not.toContain(secret);
    }
  });
});

describe("masking by key at any depth of POST /pipelines' context (issue 34 §12)", () => {
  it('keeps a value nested under a secret-named key out of the prompt, the backend, files and every response', async () => {
    const nested = 'hunter2-nested-in-post-context';
    const seen: string[] = [];
    server = await startTestServer({
      // A plug-in backend: it records what it is given and answers with it, as a model repeating its input would.
      backendFactory: () => ({
        run: async (request) => {
          const given = `${request.preamble}\n${JSON.stringify(request.context.snapshot())}`;
          seen.push(given);
          return `I was told: ${given}`;
        },
      }),
    });
    const dot = `digraph nested {
      start [shape=Mdiamond]
      ask [prompt="Summarise", fidelity="summary:high"]
      done [shape=Msquare]
      start -> ask -> done
    }`;
    const id = await server.startRun(dot, {
      context: { cfg: { client_secret: nested, region: 'eu' }, list: [{ api_key: nested }] },
    });
    const events = await openEvents(server, id);
    await events.ended;
    const bodies: Record<string, string> = {
      checkpoint: await (await server.call(`/pipelines/${id}/checkpoint`)).text(),
      context: await (await server.call(`/pipelines/${id}/context`)).text(),
      details: await (await server.call(`/pipelines/${id}`)).text(),
      response: await (await server.call(`/pipelines/${id}/stages/ask/response.md`)).text(),
      prompt: await (await server.call(`/pipelines/${id}/stages/ask/prompt.md`)).text(),
      sse: JSON.stringify(events.messages),
      backend: seen.join('\n'),
    };
    expect(seen).toHaveLength(1);
    expect(bodies.context).toContain('client_secret');
    expect(bodies.backend).toContain('region');
    for (const [where, body] of Object.entries(bodies)) expect(body, where).not.toContain(nested);
    const { readdir, readFile } = await import('node:fs/promises');
    for (const name of await readdir(`${server.runsDir}/${id}`, { recursive: true })) {
      const path = `${server.runsDir}/${id}/${name}`;
      const text = await readFile(path, 'utf8').catch(() => '');
      expect(text, path).not.toContain(nested);
    }
  });
});
