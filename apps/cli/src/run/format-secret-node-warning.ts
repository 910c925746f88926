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
 * (one the console masks, see `secretValuesFromEnv`) is a node id of the graph, or part of one: every console line
 * masks it, so that node's id shows as `[REDACTED]` (or with `[REDACTED]` inside it, `deploy` in `deploy_prod`),
 * while checkpoints and events keep it as structure. Names the variables only, never their values (which are in the
 * node ids). `undefined` when no secret value is in a node id.
 *
 * @example
 * formatSecretNodeWarning({ env: { DEPLOY_TOKEN: 'deploy' }, nodeIds: ['start', 'deploy', 'exit'] });
 * // 'warning: the value of DEPLOY_TOKEN is also a node id in this graph; that node shows as [REDACTED] on the console'
 * formatSecretNodeWarning({ env: { DEPLOY_TOKEN: 'deploy' }, nodeIds: ['start', 'deploy_prod', 'exit'] });
 * // 'warning: the value of DEPLOY_TOKEN is part of a node id in this graph; that id shows with [REDACTED] in it on the console'
 */
export function formatSecretNodeWarning(options: SecretNodeWarningOptions): string | undefined {
  const nodeIds = [...options.nodeIds];
  const exact = new Set(nodeIds);
  const whole: string[] = [];
  const partial: string[] = [];
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined) continue;
    // Only values the console masks (secretValuesFromEnv: secret names, --secret, long enough to mask).
    if (secretValuesFromEnv({ env: { [name]: value }, names: options.secretNames ?? [] }).length === 0)
      continue;
    if (exact.has(value)) whole.push(name);
    else if (nodeIds.some((id) => id.includes(value))) partial.push(name);
  }
  const lines: string[] = [];
  if (whole.length > 0) lines.push(describe(whole.sort(), 'also'));
  if (partial.length > 0) lines.push(describe(partial.sort(), 'part'));
  return lines.length === 0 ? undefined : lines.join('\n');
}

function describe(names: readonly string[], kind: 'also' | 'part'): string {
  const one = names.length === 1;
  const variables = one ? `the value of ${names[0]} is` : `the values of ${names.join(', ')} are`;
  if (kind === 'also') {
    return one
      ? `warning: ${variables} also a node id in this graph; that node shows as [REDACTED] on the console`
      : `warning: ${variables} also node ids in this graph; those nodes show as [REDACTED] on the console`;
  }
  return `warning: ${variables} part of ${one ? 'a node id' : 'node ids'} in this graph; ${one ? 'that id shows' : 'those ids show'} with [REDACTED] in ${one ? 'it' : 'them'} on the console`;
}
