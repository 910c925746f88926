/**
 * Fidelity preambles, spec §5.4: the text a fresh LLM session gets about the run so far.
 */
import type { FidelityMode } from '@attractor/graph';
import type { JsonValue } from './json-value.js';
import { createSecretMasker, isSecretKey, type SecretMasker } from './redact-secrets.js';
import type { StageRecord } from './run-store.js';

/** Approximate budgets per mode, in characters (tokens × 4, spec §5.4). `full` has none: it reuses the session. */
export const PREAMBLE_BUDGET_CHARS = {
  full: 0,
  truncate: 400,
  compact: 4_000,
  'summary:low': 2_400,
  'summary:medium': 6_000,
  'summary:high': 12_000,
} as const satisfies Record<FidelityMode, number>;

/** Options of {@link buildPreamble}. */
export interface BuildPreambleOptions {
  readonly mode: FidelityMode;
  readonly goal: string;
  readonly runId: string;
  /** Completed stages, oldest first. */
  readonly stages: readonly StageRecord[];
  /** The context values (internal keys, the engine's own keys and secret-named keys are left out). */
  readonly context: Readonly<Record<string, JsonValue>>;
  /** Masks secret values and token shapes in the text sent to the model. Default: token shapes only. */
  readonly secrets?: SecretMasker;
}

const HIDDEN_KEY = /^(internal\.|graph\.)|^(outcome|preferred_label|current_node|last_stage)$/;

function valueText(value: JsonValue, maxChars: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/**
 * Builds the preamble for a fresh session (spec §5.4). Pure.
 *
 * - `full`: empty (the backend continues the thread's conversation instead).
 * - `truncate`: the goal and the run id only.
 * - `compact`: bullet points of completed stages and their outcomes, and key context values.
 * - `summary:low|medium|high`: the same sections with more stages, longer notes and values, within
 *   ~600 / ~1500 / ~3000 tokens (approximated as characters / 4).
 *
 * The result never exceeds {@link PREAMBLE_BUDGET_CHARS} for the mode. It goes to a model, so context values under
 * secret-named keys (`deploy_token`, `apiKey`; see `isSecretKey`) are never listed, values under secret-named keys
 * inside a context value (`cfg.client_secret`) are masked, and secret values and token shapes anywhere in it are
 * masked (spec §5.4; docs/architecture.md "Secrets").
 */
export function buildPreamble(options: BuildPreambleOptions): string {
  const { mode } = options;
  if (mode === 'full') return '';
  const budget = PREAMBLE_BUDGET_CHARS[mode];
  const secrets = options.secrets ?? createSecretMasker();
  const header = [`Goal: ${options.goal === '' ? '(none)' : options.goal}`, `Run: ${options.runId}`];
  if (mode === 'truncate') return clip(secrets.maskText(header.join('\n')), budget);

  const detail = {
    compact: { stages: 20, notes: 0, values: 20, valueChars: 120 },
    'summary:low': { stages: 8, notes: 80, values: 8, valueChars: 80 },
    'summary:medium': { stages: 20, notes: 200, values: 25, valueChars: 200 },
    'summary:high': { stages: 50, notes: 400, values: 60, valueChars: 400 },
  }[mode];
  const lines = [...header, '', `Completed stages (${options.stages.length}):`];
  const stages = options.stages.slice(-detail.stages);
  if (stages.length < options.stages.length)
    lines.push(`- … ${options.stages.length - stages.length} earlier`);
  for (const stage of stages) {
    let line = `- ${stage.node}: ${stage.status}`;
    const note = stage.failure_reason ?? stage.notes;
    if (detail.notes > 0 && note !== undefined && note !== '') line += ` — ${valueText(note, detail.notes)}`;
    lines.push(line);
  }
  const entries = Object.entries(options.context).filter(
    ([key]) => !HIDDEN_KEY.test(key) && !isSecretKey(key),
  );
  if (entries.length > 0) {
    lines.push('', 'Context:');
    for (const [key, value] of entries.slice(0, detail.values)) {
      // Masked as data first: a secret-named key deep inside an object or array (`cfg.client_secret`) loses its value
      // before the value becomes text (issue 34 §12).
      lines.push(`- ${key}: ${valueText(secrets.mask(value), detail.valueChars)}`);
    }
  }
  // Masked before clipping, so a secret cut by the budget cannot leak its first half.
  return clip(secrets.maskText(lines.join('\n')), budget);
}

function clip(text: string, budget: number): string {
  return text.length <= budget ? text : `${text.slice(0, budget - 1)}…`;
}
