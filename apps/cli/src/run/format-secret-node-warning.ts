import { secretValuesFromEnv } from '@attractor/engine/secrets';

/** Options of {@link formatSecretNodeWarning}. */
export interface SecretNodeWarningOptions {
  /** The environment the console masker reads (see `withMaskedOutput`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The variables named with `--secret`, secret whatever they are called. Default: none. */
  readonly secretNames?: readonly string[];
  /** The node ids of the pipeline's graph. */
  readonly nodeIds: Iterable<string>;
}

/**
 * The warning `run` and `resume` print to stderr before the run when the value of a secret environment variable
 * (one the console masks, see `secretValuesFromEnv`) is also a node id of the graph: every console line masks that
 * node's id as `[REDACTED]`, while checkpoints and events keep it as structure. Names the variables only, never
 * their values (which are the node ids too). `undefined` when no secret value is a node id.
 *
 * @example
 * formatSecretNodeWarning({ env: { DEPLOY_TOKEN: 'deploy' }, nodeIds: ['start', 'deploy', 'exit'] });
 * // 'warning: the value of DEPLOY_TOKEN is also a node id in this graph; that node shows as [REDACTED] on the console'
 */
export function formatSecretNodeWarning(options: SecretNodeWarningOptions): string | undefined {
  const nodeIds = new Set(options.nodeIds);
  const names = Object.entries(options.env)
    .filter(
      ([name, value]) =>
        value !== undefined &&
        nodeIds.has(value) &&
        secretValuesFromEnv({ env: { [name]: value }, names: options.secretNames ?? [] }).length > 0,
    )
    .map(([name]) => name)
    .sort();
  if (names.length === 0) return undefined;
  return names.length === 1
    ? `warning: the value of ${names[0]} is also a node id in this graph; that node shows as [REDACTED] on the console`
    : `warning: the values of ${names.join(', ')} are also node ids in this graph; those nodes show as [REDACTED] on the console`;
}
