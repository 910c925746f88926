/**
 * Which context keys a fork may set (`POST /pipelines/{id}/fork` `context`): the server's check and the web UI's,
 * without zod so the UI bundle stays small.
 */

/** Keys the engine sets after every stage (spec §5.1 built-in keys); an edit would be overwritten or misroute. */
const ENGINE_KEYS: ReadonlySet<string> = new Set([
  'outcome',
  'preferred_label',
  'current_node',
  'last_stage',
]);

/**
 * Why `key` cannot be set in a fork's context, or undefined when it can: empty or padded keys, the engine's
 * bookkeeping (`internal.*`), the graph's attributes (`graph.*`) and the keys the engine sets after every stage.
 */
export function forkContextKeyProblem(key: string): string | undefined {
  if (key.trim() === '') return 'a context key must not be empty';
  if (key.trim() !== key) return `context key "${key}" has spaces around it: remove them`;
  if (key.startsWith('internal.'))
    return `context key "${key}" is the engine's own bookkeeping and cannot be set: leave it out`;
  if (key.startsWith('graph.'))
    return `context key "${key}" mirrors a graph attribute: edit the attribute in the pipeline instead`;
  if (ENGINE_KEYS.has(key))
    return `context key "${key}" is set by the engine after every stage: set a key of your own (e.g. "choice") and route on it (condition="context.choice=...")`;
  return undefined;
}
