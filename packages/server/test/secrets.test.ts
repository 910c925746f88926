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
