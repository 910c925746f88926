/**
 * The files an agent stage leaves in its stage directory (spec §5.6): `prompt.md` (the full prompt sent to the
 * agent), `response.md` (its final text) and `transcript.jsonl` (every message of the agent's stream, one JSON
 * object a line, secrets masked). The engine writes `status.json` after the stage.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, isSecretKey, redactSecrets, type SecretMasker } from '@attractor/engine';

/** The transcript file in the stage directory. */
export const TRANSCRIPT_FILE = 'transcript.jsonl';

/** Writes `text` to `{stageDir}/{name}`, replacing the file. */
export async function writeStageFile(stageDir: string, name: string, text: string): Promise<void> {
  await writeFile(join(stageDir, name), text, 'utf8');
}

/** Appends entries to `{stageDir}/transcript.jsonl` in call order. */
export interface TranscriptWriter {
  /** Appends one entry with a `timestamp`; secrets are masked first. */
  write(entry: Readonly<Record<string, unknown>>): void;
  /** Settles once every entry written so far is on disk; rejects with the first write error. */
  flush(): Promise<void>;
}

/** Options of {@link createTranscriptWriter}. */
export interface TranscriptWriterOptions {
  readonly stageDir: string;
  readonly clock: Clock;
  /** The agent's environment: values of secret-looking names (`*KEY*`, `*TOKEN*`, ...) are masked. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The run's masker (`CodergenRequest.secrets`: `--secret` names too), applied after the environment's values. */
  readonly secrets?: SecretMasker | undefined;
}

/** Creates the transcript writer of one stage attempt. */
export function createTranscriptWriter(options: TranscriptWriterOptions): TranscriptWriter {
  const path = join(options.stageDir, TRANSCRIPT_FILE);
  const secretValues = secretValuesOf(options.env);
  let queue: Promise<void> = Promise.resolve();
  // The first failed append, reported by flush(): a line the agent sends after nobody waits for the transcript any
  // more (its stage ended, its directory is gone) must not become an unhandled rejection.
  let failure: { error: unknown } | undefined;
  return {
    write(entry) {
      const redacted = redactSecrets(
        { timestamp: new Date(options.clock.now()).toISOString(), ...entry },
        secretValues,
      );
      const line = options.secrets === undefined ? redacted : options.secrets.mask(redacted);
      queue = queue
        .then(() =>
          failure === undefined ? appendFile(path, `${JSON.stringify(line)}\n`, 'utf8') : undefined,
        )
        .catch((error: unknown) => {
          failure ??= { error };
        });
    },
    async flush() {
      await queue;
      if (failure !== undefined) throw failure.error;
    },
  };
}

/** Values of the environment variables with secret-looking names, longest first (at least 4 characters). */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => isSecretKey(name) && value !== undefined && value.length >= 4)
    .map(([, value]) => value as string)
    .sort((a, b) => b.length - a.length);
}
