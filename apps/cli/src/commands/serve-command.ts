/**
 * `attractor serve`: the HTTP server mode of spec §9.5 (`@attractor/server`). Thin wiring: reads the token from
 * `--token` or `ATTRACTOR_SERVER_TOKEN`, chooses each run's LLM backend like `attractor run` does, starts the server,
 * prints its URL and token, and stops it cleanly on Ctrl-C / SIGTERM (running pipelines keep their checkpoints).
 */
import { startServer } from '@attractor/server';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { CliError } from '../errors/cli-error.js';
import { createJsonLog } from '../observability/json-log.js';
import { logRunEvent } from '../observability/log-run-event.js';
import { SERVER_TOKEN_ENV, type ServeCliOptions } from './serve-options.js';
import { prepareServer } from './server-setup.js';
import { waitForStop } from './wait-for-stop.js';

/** Options of {@link serveCommand}. */
export interface ServeCommandOptions {
  readonly options: ServeCliOptions;
  readonly io: CliIo;
  /** Stops the server when aborted. Default: SIGINT / SIGTERM of this process. */
  readonly stopSignal?: AbortSignal;
}

/** Runs the server until stopped; resolves with the exit code (0). */
export async function serveCommand(command: ServeCommandOptions): Promise<number> {
  const { options, io } = command;
  const colors = createColors(io.color);
  const prepared = await prepareServer(options, io, { metrics: true });
  const { shared, observed } = prepared;
  const log =
    options.logFormat === 'json'
      ? createJsonLog({ output: io.stdout, service: 'attractor-server' })
      : undefined;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      ...prepared.startOptions,
      host: options.host,
      port: options.port,
      ...(log === undefined
        ? {}
        : {
            onRunEvent: (event) => logRunEvent(log, event),
            onRequest: (request) => {
              // Probes and scrapes come every few seconds: not worth a line each.
              if (!PROBE_ROUTES.has(request.route)) log.info(request, 'request');
            },
          }),
    });
  } catch (error) {
    await prepared.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new CliError({
        code: 'CLI_USAGE',
        message: `Cannot listen on ${options.host}:${options.port} (${code}). Choose another --port (0 picks a free one) or --host.`,
        cause: error,
      });
    }
    throw error;
  }

  // Listen for Ctrl-C before printing the URL: a supervisor may stop the server as soon as it sees it.
  const stopped = waitForStop(command.stopSignal);
  // A token from the environment is a secret like any other: the console masks it, so say where it is instead.
  const { tokenFromEnv } = prepared;
  if (log !== undefined) {
    log.info(
      {
        url: server.url,
        // Not under a key named like a secret: the log masks those whole.
        ...(tokenFromEnv ? { bearerFrom: SERVER_TOKEN_ENV } : { bearer: server.token }),
        ...(shared === undefined ? {} : { store: shared.catalog.location, queue: shared.queue.location }),
        tracing: observed.tracing,
      },
      'listening',
    );
    if (!isLoopback(options.host)) {
      log.warn(
        { host: options.host },
        'listening beyond this machine: anyone with the token can start pipelines',
      );
    }
    if (options.allowTools === true) log.warn('--allow-tools: submitted pipelines can run shell commands');
    await stopped;
    log.info('stopping: cancelling running pipelines (their checkpoints are kept)');
    await server.close();
    await prepared.close();
    return 0;
  }
  io.stdout.write(`${colors.bold('Attractor server')} listening on ${server.url}\n`);
  if (shared !== undefined) {
    io.stdout.write(
      `Runs: ${shared.catalog.location} (started runs are queued for \`attractor worker\`; queue ${shared.queue.location})\n`,
    );
  }
  io.stdout.write(`Token: ${tokenFromEnv ? `the value of $${SERVER_TOKEN_ENV}` : server.token}\n`);
  io.stdout.write(
    `Open ${server.url}/ and paste the token; API clients send "Authorization: Bearer <token>". Ctrl-C stops the server.\n`,
  );
  if (!isLoopback(options.host)) {
    io.stderr.write(
      `${colors.yellow('warning:')} listening on ${options.host}, not only this machine: anyone who can reach it and has the token can start pipelines.\n`,
    );
  }
  if (options.allowTools === true) {
    io.stderr.write(
      `${colors.yellow('warning:')} --allow-tools: submitted pipelines can run shell commands as this user.\n`,
    );
  }

  await stopped;
  io.stderr.write('Stopping: cancelling running pipelines (their checkpoints are kept)…\n');
  await server.close();
  await prepared.close();
  return 0;
}

/** Routes of health probes and metric scrapes, left out of the JSON request log. */
const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
