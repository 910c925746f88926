/**
 * The simulation script of the `SimulationBackend`: outcome words per node, one per call, validated with zod.
 */
import { z } from 'zod';
import { SimulationScriptError } from './errors/simulation-script-error.js';

/**
 * Outcomes per node id, one per backend call in order (`{ "test": ["fail", "success"] }`). Any outcome word is
 * allowed: the built-in statuses and custom words (`{ "classify": ["bug"] }`). After a node's list is exhausted
 * the node succeeds.
 */
export type SimulationScript = Readonly<Record<string, readonly string[]>>;

const outcomeWord = z
  .string({ error: 'must be an outcome word such as "success", "fail" or a custom word' })
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be a single outcome word (letters, digits, "_", "-", ".")');

const scriptSchema = z.record(
  z.string().min(1, 'node ids must not be empty'),
  z.array(outcomeWord, { error: 'must be a list of outcome words' }),
  { error: 'must be a JSON object' },
);

/**
 * Validates a parsed simulation script.
 *
 * @param data - the parsed JSON.
 * @param path - the file it came from, for the error message. Default: `<inline>`.
 * @throws {SimulationScriptError} naming the file and the first bad entry, e.g. `"classify"[1] must be ...`.
 */
export function parseSimulationScript(data: unknown, path = '<inline>'): SimulationScript {
  const parsed = scriptSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const [nodeId, index] = issue.path;
  const where =
    nodeId === undefined
      ? 'the script'
      : index === undefined
        ? `"${String(nodeId)}"`
        : `"${String(nodeId)}"[${String(index)}]`;
  const got = describeValue(valueAt(data, issue.path));
  throw new SimulationScriptError({ path, problem: `${where} ${issue.message} (got ${got})` });
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
