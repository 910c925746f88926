import type { Readable, Writable } from 'node:stream';
import type { McpServerConfig } from '@attractor/backend-ai-sdk';
import type { CodergenBackend, Handler, HandlerRegistry, Interviewer } from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import type { SimulationScriptKeyCheck } from '@attractor/handlers';
import type { ResolvedBackend } from './backend-choice.js';

/** What a run needs from the plug-in packages (handlers, backends). */
export interface RunServices {
  readonly registry: HandlerRegistry;
  readonly backend: CodergenBackend;
  /** Asks a person in the terminal; only when stdin is a terminal. */
  readonly console?: Interviewer;
  /** Secret values to scrub from events and logs (the API key). */
  readonly secretValues: readonly string[];
  /**
   * With `--simulate-script`: the script file (absolute path) and which of its keys name no node of the pipeline
   * or its sub-pipelines, for the warning printed before the run.
   */
  readonly simulationScript?: { readonly path: string; readonly check: SimulationScriptKeyCheck };
  /** Releases what the services hold (the console's stdin reader), so the process can exit. */
  readonly dispose?: () => void;
}

/** Options of a {@link RunServicesFactory}. */
export interface CreateRunServicesOptions {
  readonly backend: ResolvedBackend;
  readonly graph: Graph;
  /** The interviewer handlers will use (already composed from --answer, --auto-approve and the console). */
  readonly interviewer: Interviewer;
  readonly workdir: string;
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly stdout: Writable;
  /** The environment handed to agent shell tools (the backend filters secrets out of it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Plug-in handlers by type (`attractor.config.*`), registered over the built-ins. Default: none. */
  readonly handlers?: ReadonlyMap<string, Handler>;
  /** MCP servers by name (`attractor.config.*`), for LLM stages' `mcp_servers`. Default: none. */
  readonly mcpServers?: ReadonlyMap<string, McpServerConfig>;
  /**
   * With `--simulate-script`, for a resume or a fork: the calls each node already made in the run (see
   * `readSimulationCalls` of `@attractor/handlers`), so each node takes its next step. Default: none.
   */
  readonly simulationCalls?: ReadonlyMap<string, number>;
  /**
   * False where shell commands are not allowed (`attractor worker` without `--allow-tools`): `--backend` stages on an
   * agent that can run shell commands are refused (see `createRoutedBackend`). Default: true.
   */
  readonly allowShell?: boolean;
  /**
   * The wording of the AI SDK backend's preflight error (a missing key, no model): its first line and its last
   * (see `formatPreflight`). Default: what `run` says.
   */
  readonly preflightWording?: {
    readonly heading: string;
    readonly closing: string;
    readonly stageWords?: string;
  };
}

/** Builds the handler registry and backend for a run (loaded lazily: only `run` and `resume` need them). */
export type RunServicesFactory = (options: CreateRunServicesOptions) => Promise<RunServices>;
