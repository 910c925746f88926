/**
 * `--log-format json` of `serve` and `worker`: one JSON object a line on stdout (pino), with `level`, an ISO `time`,
 * `msg`, and the fields of what happened (`runId`, `node`, ...), for log collectors. The console's own masking of
 * secrets applies (the lines go through the CLI's stdout).
 */
import { pino } from 'pino';
import type { TextOutput } from '../cli-io.js';

/** The log lines' format: the console's human lines, or JSON. */
export type LogFormat = 'human' | 'json';

/** A structured logger (pino's). */
export type JsonLog = pino.Logger;

/** A logger writing JSON lines to `output`, with `service` on every line. */
export function createJsonLog(options: { readonly output: TextOutput; readonly service: string }): JsonLog {
  return pino(
    {
      base: { service: options.service, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => options.output.write(line) },
  );
}
