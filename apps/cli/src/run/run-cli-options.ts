import type { SetValue } from '../parse-options.js';
import type { BackendRouting } from './backend-option.js';
import type { SandboxKind } from './resolve-sandbox.js';

/** The backend choice of `run` and `resume`, recorded in the run directory so that `resume` can reuse it. */
export interface BackendChoice {
  /** Simulate LLM stages (spec §4.5 SimulationBackend). */
  readonly simulate?: boolean;
  /** JSON file `{ "<node id>": ["fail", "success", ...] }` of simulated outcomes per visit; implies `simulate`. */
  readonly simulateScript?: string;
  /** Simulate LLM stages and record tool commands without running them. */
  readonly dryRun?: boolean;
  /** Simulation: breaks ties between equally short routes (`createRouteFinder`'s seed). Default: 0. */
  readonly seed?: number;
  /** Default model for stages that name none (`llm_model`). */
  readonly model?: string;
  /** Default provider for stages that name none (`llm_provider`). */
  readonly provider?: string;
  /** OpenAI-compatible base URL; default `OPENAI_BASE_URL`, then OpenAI. */
  readonly baseUrl?: string;
  /** JSON price file `{ "<model>": { "input": 3, "output": 15, "cachedInput": 0.3 } }` (USD per million tokens). */
  readonly prices?: string;
  /** `--backend`: which backend runs each LLM stage (default: `api` for all). */
  readonly backend?: BackendRouting;
  /** `--agent-permissions`: what agent CLIs may do without asking. Default: `edit`. */
  readonly agentPermissions?: 'edit' | 'full';
}

/** Options shared by `attractor run` and `attractor resume`, as commander parses them. */
export interface RunCliOptions extends BackendChoice {
  readonly logsDir?: string;
  readonly workdir?: string;
  readonly set?: Readonly<Record<string, SetValue>>;
  /** `run`: `--input name=value`, the texts by input name (README "Typed data"). */
  readonly input?: Readonly<Record<string, string>>;
  /** `run`: `--inputs-file`, a JSON object of inputs. */
  readonly inputsFile?: string;
  readonly maxSteps?: number;
  /** Run budget in USD: no model call starts once the run's model calls cost this much (overrides `max_budget_usd`). */
  readonly maxBudgetUsd?: number;
  /** Run budget in tokens (overrides `max_tokens`). */
  readonly maxTokens?: number;
  readonly autoApprove?: boolean;
  readonly answer?: readonly string[];
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly verbose?: boolean;
  readonly strict?: boolean;
  /** `--secret NAME`: environment variables whose values are masked (main.ts reads them from argv). */
  readonly secret?: readonly string[];
  /** The plug-in config file (default: `attractor.config.{js,mjs,ts}` in the working directory, if any). */
  readonly config?: string;
  /**
   * `--sandbox`: confine tool and agent stage commands (`bwrap`), or not (`none`, the default). Recorded with the run,
   * so `resume` keeps it.
   */
  readonly sandbox?: SandboxKind;
  /** `resume` only: continue at this node. */
  readonly from?: string;
  /** `resume` only: the DOT file, when it moved since the run started. */
  readonly graph?: string;
  /** `--otel`: export the run's spans (OpenTelemetry, configured by the `OTEL_*` environment variables). */
  readonly otel?: boolean;
  /** `--otel-content`: `--otel`, with prompt and response text in the spans. */
  readonly otelContent?: boolean;
  /** `run`: the workspace mode (README "Workspaces"). */
  readonly workspace?: 'git' | 'copy' | 'in-place' | 'auto';
  /** `run`, `fork`: where worktrees go. */
  readonly workspaceRoot?: string;
  /** `run`: author of the run's commits, `Name <email>`. */
  readonly commitAuthor?: string;
}
