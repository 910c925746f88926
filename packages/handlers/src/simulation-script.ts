/**
 * The simulation script of the `SimulationBackend` and of dry-run tool nodes: what each node does, one step per
 * call, validated with zod.
 */
import type { JsonValue } from '@attractor/engine';
import { didYouMean, STANDARD_OUTCOMES } from '@attractor/graph';
import { z } from 'zod';
import { SimulationScriptError } from './errors/simulation-script-error.js';

/**
 * One scripted call of a node: an outcome word (`"success"`, `"fail"`, `"retry"`, `"partial_success"` or a custom
 * word such as `"bug"`), or an object `{ "outcome"?: word, "stdout"?: text, "response"?: text or JSON value }`.
 * `stdout` is what a tool node prints in a dry run (`tool.output` / `tool_stdout`), for pipelines that route on it;
 * it is an error on an LLM stage. `response` is an LLM stage's reply (a JSON value is written as JSON text), checked
 * against the stage's `output_schema` like a real reply (README "Typed data"); it is an error on a tool node.
 */
export type SimulationStep =
  | string
  | {
      readonly outcome?: string | undefined;
      readonly stdout?: string | undefined;
      readonly response?: JsonValue | undefined;
    };

/**
 * Steps per node id, one per call in order (`{ "test": ["fail", "success"], "check": [{ "stdout": "fresh" }] }`).
 * After a node's list is exhausted the node succeeds.
 */
export type SimulationScript = Readonly<Record<string, readonly SimulationStep[]>>;

const outcomeWord = z
  .string({ error: 'must be an outcome word such as "success", "fail" or a custom word' })
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be a single outcome word (letters, digits, "_", "-", ".")');

const stepObject = z.strictObject({
  outcome: outcomeWord.optional(),
  stdout: z.string({ error: 'must be a string (what the tool prints)' }).optional(),
  response: z.json({ error: 'must be the reply: a string or a JSON value' }).optional(),
});

const stepSchema = z.union([outcomeWord, stepObject]);

const scriptSchema = z.record(
  z.string().min(1, 'node ids must not be empty'),
  z.array(stepSchema, { error: 'must be a list of outcome words' }),
  { error: 'must be a JSON object' },
);

/**
 * The outcome word, tool stdout and LLM reply of a step (`undefined` when the step leaves them to the default). A
 * `response` that is not a string is its JSON text.
 */
export function readSimulationStep(step: SimulationStep | undefined): {
  readonly outcome?: string;
  readonly stdout?: string;
  readonly response?: string;
} {
  if (step === undefined) return {};
  if (typeof step === 'string') return { outcome: step };
  return {
    ...(step.outcome === undefined ? {} : { outcome: step.outcome }),
    ...(step.stdout === undefined ? {} : { stdout: step.stdout }),
    ...(step.response === undefined
      ? {}
      : { response: typeof step.response === 'string' ? step.response : JSON.stringify(step.response) }),
  };
}

/** The outcome words of spec §5.2, in the order the script error lists them. */
const STANDARD_OUTCOME_WORDS: readonly string[] = [...STANDARD_OUTCOMES];

/** Options of {@link parseSimulationScript} and `loadSimulationScript`. */
export interface ParseSimulationScriptOptions {
  /**
   * The custom outcome words the pipeline routes on (`bug` of `outcome=bug`; see `pipelineOutcomeWords`). Given
   * (even empty), the step words are checked: a word that is none of spec §5.2's (`success`, `partial_success`,
   * `retry`, `fail`, `skipped`) nor of these, but close to one of them (`fial`, `sucess`, `fetaure`: see
   * `didYouMean` of `@attractor/graph`), is a typo that would route nowhere and is rejected; other words are custom
   * outcomes and pass. Default for `parseSimulationScript`: not given, no check (the words of an inline script are
   * the caller's); `loadSimulationScript` always checks (default: no custom words).
   */
  readonly outcomes?: Iterable<string>;
}

/**
 * Validates a parsed simulation script: its shape, and with `options.outcomes` its outcome words.
 *
 * @param data - the parsed JSON.
 * @param path - the file it came from, for the error message. Default: `<inline>`.
 * @throws {SimulationScriptError} naming the file and the first bad entry, e.g. `"classify"[1] must be ...`, or for a
 *   mistyped word the key, the index, the word meant and the allowed words.
 */
export function parseSimulationScript(
  data: unknown,
  path = '<inline>',
  options: ParseSimulationScriptOptions = {},
): SimulationScript {
  const parsed = scriptSchema.safeParse(data);
  if (parsed.success) {
    if (options.outcomes !== undefined) checkOutcomeWords(parsed.data, path, [...new Set(options.outcomes)]);
    return parsed.data;
  }
  const issue = innermostIssue(parsed.error.issues[0]!, data);
  const [nodeId, index, field] = issue.path;
  const where =
    nodeId === undefined
      ? 'the script'
      : index === undefined
        ? `"${String(nodeId)}"`
        : field === undefined
          ? `"${String(nodeId)}"[${String(index)}]`
          : `"${String(nodeId)}"[${String(index)}].${String(field)}`;
  const got = describeValue(valueAt(data, issue.path));
  throw new SimulationScriptError({ path, problem: `${where} ${issue.message} (got ${got})` });
}

/** Throws for the first step word that is no known outcome word but is close to one (a typo). */
function checkOutcomeWords(script: SimulationScript, path: string, customWords: readonly string[]): void {
  const known = new Set([...STANDARD_OUTCOME_WORDS, ...customWords]);
  for (const [nodeId, steps] of Object.entries(script)) {
    steps.forEach((step, index) => {
      const word = readSimulationStep(step).outcome;
      if (word === undefined || known.has(word)) return;
      const meant = didYouMean(word, known);
      if (meant === undefined) return;
      const where = typeof step === 'string' ? `"${nodeId}"[${index}]` : `"${nodeId}"[${index}].outcome`;
      const custom =
        customWords.length === 0
          ? ''
          : `, or a custom word the pipeline routes on: ${customWords.join(', ')}`;
      throw new SimulationScriptError({
        path,
        problem: `${where} is "${word}", which is no outcome word. Did you mean "${meant}"? Outcome words are ${STANDARD_OUTCOME_WORDS.join(', ')}${custom}`,
      });
    });
  }
}

interface ScriptIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * A failed step matches neither form: report the problem of the form the value was meant to be (a string is an
 * outcome word, an object a step object), or both forms for anything else.
 */
function innermostIssue(issue: z.core.$ZodIssue, data: unknown): ScriptIssue {
  if (issue.code !== 'invalid_union') return describeIssue(issue, []);
  const value = valueAt(data, issue.path);
  const branch =
    typeof value === 'string'
      ? issue.errors[0]
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? issue.errors[1]
        : undefined;
  const inner = branch?.[0];
  if (inner === undefined) {
    return {
      path: issue.path,
      message:
        'must be an outcome word such as "success", "fail" or a custom word, or an object {"outcome": "...", "stdout": "...", "response": ...}',
    };
  }
  return describeIssue(inner, issue.path);
}

function describeIssue(issue: z.core.$ZodIssue, parentPath: readonly PropertyKey[]): ScriptIssue {
  const message =
    issue.code === 'unrecognized_keys'
      ? `has unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')} (a step object has "outcome", "stdout" and "response")`
      : issue.message;
  return { path: [...parentPath, ...issue.path], message };
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
