/**
 * The API client of the web UI: every request carries the bearer token (kept in this tab's sessionStorage), errors
 * come back as {@link ApiRequestError} with the server's code and message, and a 401 asks for the token again.
 */
import type {
  RunDetails,
  RunDiffResponse,
  RunSummary,
  ServerInfo,
  StageDiffResponse,
  StageDirectory,
} from '../../src/index.js';

export type { RunDetails, RunDiffResponse, RunSummary, ServerInfo, StageDiffResponse, StageDirectory };

const TOKEN_KEY = 'attractor.token';

/** A refused or failed request, with the server's error code when it sent one. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(options: { status: number; code: string; message: string }) {
    super(options.message);
    this.name = 'ApiRequestError';
    this.status = options.status;
    this.code = options.code;
  }
}

type Listener = () => void;

/** The token state shared by the app: the token, and why the sign-in dialog is open (if it is). */
export const auth = {
  token: sessionStorage.getItem(TOKEN_KEY) ?? '',
  /** Set when a request was refused with 401: the dialog shows it. */
  problem: undefined as string | undefined,
  listeners: new Set<Listener>(),
  set(token: string): void {
    this.token = token;
    this.problem = undefined;
    if (token === '') sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
    this.emit();
  },
  reject(problem: string): void {
    this.token = '';
    this.problem = problem;
    sessionStorage.removeItem(TOKEN_KEY);
    this.emit();
  },
  emit(): void {
    for (const listener of this.listeners) listener();
  },
};

/** `fetch` with the token; throws {@link ApiRequestError} for any status other than 2xx. */
export async function apiFetch(path: string, init: RequestInit = {}, token = auth.token): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${token}`);
  if (typeof init.body === 'string' && !headers.has('Content-Type'))
    headers.set('Content-Type', 'application/json');
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (error) {
    throw new ApiRequestError({
      status: 0,
      code: 'NETWORK',
      message: `The server cannot be reached (${(error as Error).message}). Is \`attractor serve\` still running?`,
    });
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { code?: string; message?: string } }
    | undefined;
  const error = new ApiRequestError({
    status: response.status,
    code: body?.error?.code ?? `HTTP_${response.status}`,
    message: body?.error?.message ?? `${response.status} ${response.statusText}`,
  });
  if (response.status === 401 && token === auth.token) {
    auth.reject(
      token === ''
        ? 'Paste the token `attractor serve` printed.'
        : 'The server did not accept that token. Paste the token `attractor serve` printed (or the one given with --token / ATTRACTOR_SERVER_TOKEN).',
    );
  }
  throw error;
}

/** `apiFetch`, then the JSON body. */
export async function apiJson<TBody>(path: string, init?: RequestInit): Promise<TBody> {
  return (await (await apiFetch(path, init)).json()) as TBody;
}

/** `apiFetch`, then the text body. */
export async function apiText(path: string, init?: RequestInit): Promise<string> {
  return (await apiFetch(path, init)).text();
}

/**
 * The path of a run's API resource; with `child` (a child run path such as `checks/child`), that of the child run
 * inside it (`?child=` on the run's read routes).
 */
export function runPath(runId: string, rest = '', child?: string): string {
  const path = `/pipelines/${encodeURIComponent(runId)}${rest}`;
  return child === undefined
    ? path
    : `${path}${path.includes('?') ? '&' : '?'}child=${encodeURIComponent(child)}`;
}

/** A pending question as `GET /pipelines/{id}/questions` lists it. */
export interface PendingQuestion {
  readonly id: string;
  readonly askedAt: string;
  readonly question: {
    readonly id: string;
    readonly text: string;
    readonly type: 'yes_no' | 'multiple_choice' | 'freeform' | 'confirmation';
    readonly options: readonly { readonly key: string; readonly label: string }[];
    readonly default?: { readonly value: string; readonly selectedOption?: { key: string; label: string } };
    readonly timeoutMs?: number;
    readonly stage: string;
  };
}
