/** A default registry whose codergen handler is the engine's scripted test handler (outcomes per node and call). */
import type { HandlerRegistry } from '@attractor/engine';
import { createScriptedHandler, type ScriptedHandler, type ScriptStep } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';

/** A registry with the built-in handlers, where every `box` (codergen) node runs `script[nodeId]` in order. */
export function scriptedRegistry(script: Readonly<Record<string, readonly ScriptStep[]>> = {}): {
  registry: HandlerRegistry;
  handler: ScriptedHandler;
} {
  const handler = createScriptedHandler({ script, fallback: 'success' });
  const registry = createDefaultRegistry().register('codergen', handler);
  return { registry, handler };
}
