/**
 * The `--backend` option of `run`, `resume` and `serve` (spec §1.4: the run, not the DOT file, chooses how LLM
 * stages run): one backend for every stage, a mapping per provider, or both.
 */
/**
 * The backends: `api` (the AI SDK backend) or a coding-agent CLI. The same list as `BACKEND_VALUES` of
 * @attractor/graph (a test keeps them equal); spelled out here so that parsing options loads no graph code.
 */
export const BACKEND_VALUES = ['api', 'claude-code', 'codex', 'gemini-cli'] as const;

/** A backend name: `api` (the AI SDK backend) or a coding-agent CLI. */
export type BackendName = (typeof BACKEND_VALUES)[number];

/** Which backend runs each LLM stage, as `--backend` says. */
export interface BackendRouting {
  /** For stages whose provider has no mapping. Default: `api`. */
  readonly default: BackendName;
  /** By provider (`anthropic`, `openai`, `google`, ...): the node's `llm_provider`, or the one its model implies. */
  readonly byProvider: Readonly<Record<string, BackendName>>;
}

/** The routing without a `--backend` option: every stage on the AI SDK backend. */
export const DEFAULT_BACKEND_ROUTING: BackendRouting = { default: 'api', byProvider: {} };

function isBackendName(value: string): value is BackendName {
  return (BACKEND_VALUES as readonly string[]).includes(value);
}

function notABackend(name: string, where: string): string {
  return `"${name}"${where} is not a backend; use one of ${BACKEND_VALUES.join(', ')} (e.g. --backend claude-code or --backend anthropic=claude-code,openai=codex).`;
}

/**
 * Reads `--backend`: comma-separated entries, each a backend name (the default for every stage) or
 * `<provider>=<backend>`. `claude-code`, `anthropic=claude-code,openai=codex` and `codex,anthropic=claude-code`
 * are valid. Returns the routing, or the message for a value that is not (naming the entry and the backends);
 * `main.ts` turns it into commander's usage error, so this module loads no commander code.
 */
export function readBackendOption(
  text: string,
): { readonly routing: BackendRouting } | { readonly error: string } {
  let fallback: BackendName | undefined;
  const byProvider: Record<string, BackendName> = {};
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const equals = entry.indexOf('=');
    if (equals === -1) {
      if (fallback !== undefined) {
        return {
          error: `"${text}" names two default backends (${fallback}, ${entry}); give one, plus <provider>=<backend> pairs.`,
        };
      }
      if (!isBackendName(entry)) return { error: notABackend(entry, '') };
      fallback = entry;
      continue;
    }
    const provider = entry.slice(0, equals).trim().toLowerCase();
    if (provider === '') return { error: `the provider before "=" is empty in "${entry}".` };
    const name = entry.slice(equals + 1).trim();
    if (!isBackendName(name)) return { error: notABackend(name, ` (for provider ${provider})`) };
    byProvider[provider] = name;
  }
  if (fallback === undefined && Object.keys(byProvider).length === 0) {
    return { error: `expected a backend (${BACKEND_VALUES.join(', ')}), got "${text}".` };
  }
  return { routing: { default: fallback ?? 'api', byProvider } };
}

/** The `--backend` value that {@link readBackendOption} reads back as `routing` (for recording a run's choice). */
export function formatBackendOption(routing: BackendRouting): string {
  return [
    routing.default,
    ...Object.entries(routing.byProvider).map(([provider, name]) => `${provider}=${name}`),
  ].join(',');
}

/**
 * The backend of one LLM stage: the node's `backend` attribute (after the stylesheet), else the mapping of its
 * provider (`llm_provider`, else `inferredProvider` of its model), else the default.
 */
export function backendForNode(
  node: {
    readonly attributes: Readonly<Record<string, { readonly value: string } | undefined>>;
    readonly llmProvider?: string;
  },
  routing: BackendRouting,
  inferredProvider?: string,
): BackendName {
  const own = node.attributes.backend?.value.trim();
  if (own !== undefined && isBackendName(own)) return own;
  const provider = (node.llmProvider ?? inferredProvider)?.toLowerCase();
  return (provider === undefined ? undefined : routing.byProvider[provider]) ?? routing.default;
}
