/**
 * The console boundary of secret masking (docs/architecture.md "Secrets"): everything the CLI prints goes
 * through the run's masker, whatever printed it (event display, summaries, error messages, commander).
 */
import { createSecretMasker, type SecretMasker, secretValuesFromEnv } from '@attractor/engine/secrets';
import type { CliIo, TextOutput } from './cli-io.js';

/**
 * The names given with `--secret NAME` / `--secret=NAME` anywhere in `argv`. Read before commander parses, so that
 * even a usage error cannot print a secret.
 */
export function secretNamesFromArgv(argv: readonly string[]): string[] {
  const names: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--') break;
    if (argument === '--secret' && index + 1 < argv.length) names.push(argv[++index]!);
    else if (argument.startsWith('--secret=')) names.push(argument.slice('--secret='.length));
  }
  return names;
}

/** Wraps a text output so every write is masked. */
export function maskOutput(output: TextOutput, masker: SecretMasker): TextOutput {
  const wrapped: TextOutput = {
    write: (text: string) => output.write(masker.maskText(text)),
  };
  // isTTY and columns stay live (a terminal can be resized).
  Object.defineProperty(wrapped, 'isTTY', { get: () => output.isTTY, enumerable: true });
  Object.defineProperty(wrapped, 'columns', { get: () => output.columns, enumerable: true });
  return wrapped;
}

/**
 * `io` with masked stdout and stderr and its `secretValues`: the values of secret-named environment variables
 * (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, `*AUTH*`) and of the variables named
 * with `--secret`.
 */
export function withMaskedOutput(io: CliIo, argv: readonly string[]): CliIo {
  const names = secretNamesFromArgv(argv);
  const secretValues = secretValuesFromEnv({ env: io.env, names });
  const masker = createSecretMasker({ values: secretValues });
  const masked = {
    ...io,
    stdout: maskOutput(io.stdout, masker),
    stderr: maskOutput(io.stderr, masker),
    secretValues,
  };
  // A misspelt name would otherwise leave the secret it meant unmasked without a word.
  for (const name of names) {
    if (io.env[name] === undefined || io.env[name] === '')
      masked.stderr.write(
        `warning: --secret ${name}: no environment variable of that name is set, so there is nothing to mask; check the spelling (names are case-sensitive)\n`,
      );
  }
  return masked;
}
