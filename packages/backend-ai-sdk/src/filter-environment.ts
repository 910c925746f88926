/**
 * Environment filtering for agent shell commands and tool hooks (coding-agent-loop-spec §4.2,
 * docs/architecture.md "Events"): no variable whose name looks like a secret reaches a child process.
 */

/** Name fragments that mark a variable as secret, matched case-insensitively anywhere in the name. */
export const SECRET_ENV_FRAGMENTS = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL'] as const;

/** Whether an environment variable name contains `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD` or `CREDENTIAL`. */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_ENV_FRAGMENTS.some((fragment) => upper.includes(fragment));
}

/**
 * A copy of `env` without undefined values and without every variable {@link isSecretEnvName} flags
 * (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, ...). `PATH`, `HOME` and the like pass.
 */
export function filterEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnvName(name)) result[name] = value;
  }
  return result;
}
