/**
 * The stage transcript `{stageDir}/transcript.jsonl`: one JSON object per line for every model step, tool call,
 * hook run and steering message, in order, with secrets redacted (docs/architecture.md "Events").
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, redactSecrets, type SecretMasker } from '@attractor/engine';

/** File name of the transcript inside the stage directory. */
export const TRANSCRIPT_FILE = 'transcript.jsonl';

/** One transcript line: a `type` plus fields; `timestamp` (ISO-8601) is added by the writer. */
export interface TranscriptEntry {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** Appends entries to a stage's transcript, in call order. */
export interface TranscriptWriter {
  /**
   * Queues an entry; resolves once it is written. Callers on a hot path may leave it unawaited and await
   * {@link TranscriptWriter.flush} later: a failed write then surfaces there.
   */
  write(entry: TranscriptEntry): Promise<void>;
  /** Resolves when every queued entry is written; rejects when one failed. */
  flush(): Promise<void>;
}

/**
 * A transcript writer for `{stageDir}/transcript.jsonl`. Writes are queued so lines never interleave; values
 * under secret-named keys and the given secret values are replaced by `[REDACTED]`.
 */
export function createTranscriptWriter(options: {
  readonly stageDir: string;
  readonly clock: Clock;
  readonly secretValues: readonly string[];
  /** The run's masker (`CodergenRequest.secrets`), applied after `secretValues`. Default: none. */
  readonly secrets?: SecretMasker | undefined;
}): TranscriptWriter {
  const path = join(options.stageDir, TRANSCRIPT_FILE);
  let queue: Promise<void> = Promise.resolve();
  return {
    write(entry) {
      const redacted = redactSecrets(
        { timestamp: new Date(options.clock.now()).toISOString(), ...entry },
        options.secretValues,
      );
      const line = options.secrets === undefined ? redacted : options.secrets.mask(redacted);
      queue = queue.then(() => appendFile(path, `${JSON.stringify(line)}\n`, 'utf8'));
      const written = queue;
      // An unawaited write must not become an unhandled rejection; flush() reports it.
      written.catch(() => {});
      return written;
    },
    flush: () => queue,
  };
}
