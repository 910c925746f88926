/**
 * A scripted model server on 127.0.0.1 for the agent CLIs' tests. Each test puts a marker `[[scenario:<name>]]`
 * in its stage prompt; the server finds the last marker in a request's conversation, counts the model turns
 * since it, and answers with that step of the scenario in the wire protocol of the CLI's provider. Requests
 * without a marker (an agent's side calls, such as titles) get a short text reply.
 *
 * The server also stands in as `HTTP(S)_PROXY` for the CLIs: any request to another host (telemetry, update
 * checks) is refused and recorded in `outbound`, and each test file asserts that it stays empty.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model turn of a scenario. */
export type ScriptedTurn =
  | { readonly text: string }
  | { readonly tool: string; readonly input: Readonly<Record<string, unknown>>; readonly text?: string }
  | { readonly httpError: number; readonly message: string }
  /** Never answers (the connection stays open until the server closes). */
  | { readonly hang: true };

/**
 * A scenario whose sessions get different turns: the n-th session on its marker (a request at step 0 starts one, as
 * a stage's retry does) takes `attempts[n]`, the last entry for any later one. For a retry that answers differently.
 */
export interface ScriptedAttempts {
  readonly attempts: readonly (readonly ScriptedTurn[])[];
}

/** The turns of a scenario: the same for every session, or per session. */
export type ScriptedScenario = readonly ScriptedTurn[] | ScriptedAttempts;

/** A request the server answered. */
export interface RecordedRequest {
  readonly path: string;
  readonly scenario?: string;
  readonly step: number;
  /** Every text of the request body's conversation, in order (to check what a resumed session contains). */
  readonly texts: readonly string[];
  readonly body: unknown;
}

/** What a protocol module gives the server: how to read a conversation and how to write a turn. */
export interface WireProtocol {
  /** Whether this path is a model call. */
  isModelCall(method: string, path: string): boolean;
  /** The conversation's texts, and the model turns after the last user text with a marker. */
  read(body: unknown): {
    readonly texts: readonly string[];
    readonly turnsSinceMarker: (marker: string) => number;
  };
  /** Writes one turn. `step` counts from 0 within the scenario; `call` counts all model calls. */
  write(
    response: ServerResponse,
    turn: ScriptedTurn,
    context: { readonly call: number; readonly body: unknown },
  ): void;
}

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Requests for other hosts that reached the server as a proxy (refused). */
  readonly outbound: string[];
  /** Adds or replaces scenarios (a replaced scenario's session count starts again). */
  script(scenarios: Readonly<Record<string, ScriptedScenario>>): void;
  close(): Promise<void>;
}

const MARKER = /\[\[scenario:([\w-]+)\]\]/g;

/** Starts the server on 127.0.0.1 with a random port. */
export async function startScriptedServer(protocol: WireProtocol): Promise<ScriptedServer> {
  const scenarios = new Map<string, ScriptedScenario>();
  /** Sessions started per scenario (requests at step 0). */
  const sessions = new Map<string, number>();
  const requests: RecordedRequest[] = [];
  const outbound: string[] = [];
  const hanging = new Set<ServerResponse>();
  let calls = 0;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '/';
    if (/^https?:\/\//.test(path)) {
      outbound.push(`${request.method} ${path}`);
      response.writeHead(403).end();
      return;
    }
    let text = '';
    for await (const chunk of request) text += chunk;
    if (!protocol.isModelCall(request.method ?? 'GET', path)) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const body: unknown = text === '' ? {} : JSON.parse(text);
    const conversation = protocol.read(body);
    let scenario: string | undefined;
    for (const value of conversation.texts) {
      for (const match of value.matchAll(MARKER)) scenario = match[1];
    }
    const step = scenario === undefined ? 0 : conversation.turnsSinceMarker(`[[scenario:${scenario}]]`);
    requests.push({
      path,
      ...(scenario === undefined ? {} : { scenario }),
      step,
      texts: conversation.texts,
      body,
    });
    let turns: readonly ScriptedTurn[] | undefined;
    if (scenario !== undefined) {
      const session = (sessions.get(scenario) ?? 0) + (step === 0 ? 1 : 0);
      sessions.set(scenario, session);
      turns = turnsOf(scenarios.get(scenario), session);
    }
    const turn: ScriptedTurn = turns?.[step] ?? { text: scenario === undefined ? 'OK' : 'Done.' };
    if ('hang' in turn) {
      hanging.add(response);
      return;
    }
    protocol.write(response, turn, { call: calls++, body });
  });
  server.on('connect', (request, socket) => {
    outbound.push(`CONNECT ${request.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    outbound,
    script(more) {
      for (const [name, turns] of Object.entries(more)) {
        scenarios.set(name, turns);
        sessions.delete(name);
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The turns of the `session`-th session (from 1) of a scenario. */
function turnsOf(
  scenario: ScriptedScenario | undefined,
  session: number,
): readonly ScriptedTurn[] | undefined {
  if (scenario === undefined || !('attempts' in scenario)) return scenario;
  return scenario.attempts[Math.max(1, Math.min(session, scenario.attempts.length)) - 1];
}

/** Writes one server-sent event. */
export function writeEvent(response: ServerResponse, event: string | undefined, data: unknown): void {
  response.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
}
