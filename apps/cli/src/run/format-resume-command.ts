/**
 * The resume command `run`, `resume` and `fork` print after an interruption or a failure: the command the user pastes
 * to go on, with the `--answer` values no gate took yet (a resumed run would stop at the gate without them).
 */
import { createSecretMasker } from '@attractor/engine/secrets';
import { cliCommand, quoteArgument } from '../cli-command.js';

/** Options of {@link formatResumeCommand}. */
export interface FormatResumeCommandOptions {
  /** The process environment: spells the command ({@link cliCommand}) and names the variables secret answers come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The run directory as the user would type it. */
  readonly runDir: string;
  /** The `--answer` values no question took yet, in order. Default: none. */
  readonly unusedAnswers?: readonly string[];
  /** Secret values the console masks (`CliIo.secretValues`: secret-named variables and `--secret`). Default: none. */
  readonly secretValues?: readonly string[];
}

/**
 * `attractor resume <dir>` followed by ` --answer <value>` for each unused answer, each shell-quoted
 * ({@link quoteArgument}). An answer holding a secret (a value the console masks: a secret variable's value, a
 * well-known token shape) is never printed: an answer equal to the value of an environment variable is written as
 * `"$NAME"` (the pasted command reads it again), any other as the placeholder `<secret>` for the user to fill in,
 * like the CLI's other hints write `<node>`. Pure.
 *
 * @example
 * formatResumeCommand({ env: { DEPLOY_TOKEN: 'tok-123456' }, runDir: 'run', unusedAnswers: ["it's done", 'tok-123456'], secretValues: ['tok-123456'] });
 * // `attractor resume run --answer 'it'\''s done' --answer "$DEPLOY_TOKEN"`
 */
export function formatResumeCommand(options: FormatResumeCommandOptions): string {
  const masker = createSecretMasker({ values: options.secretValues ?? [] });
  const answers = (options.unusedAnswers ?? []).map((answer) => {
    if (masker.maskText(answer) === answer) return ` --answer ${quoteArgument(answer)}`;
    const name = Object.keys(options.env)
      .sort()
      .find((key) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && options.env[key] === answer);
    return ` --answer ${name === undefined ? '<secret>' : `"$${name}"`}`;
  });
  return `${cliCommand(options.env)} resume ${quoteArgument(options.runDir)}${answers.join('')}`;
}
