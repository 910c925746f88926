/**
 * Reads a JSON Schema file a pipeline names (`inputs="schemas/in.json"`, `output_schema="schemas/review.json"`) for
 * lint, through `prepareGraph`'s file reader: the graph package does no I/O of its own.
 */
import type { GraphFileReader } from './graph-refs.js';

/**
 * The JSON object the file at `path` holds, or why not, as a phrase to put after the file's name: `does not exist`,
 * `cannot be read (...)`, `is not JSON (...)`, `is not a JSON Schema object`.
 */
export function readJsonSchemaFile(path: string, read: GraphFileReader): Record<string, unknown> | string {
  let text: string | undefined;
  try {
    text = read(path);
  } catch (error) {
    return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
  if (text === undefined) return 'does not exist';
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    return `is not JSON (${(error as Error).message})`;
  }
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema)
    ? (schema as Record<string, unknown>)
    : 'is not a JSON Schema object';
}
