/**
 * The project module of `attractor lsp` (see `ProjectModule` of `@attractor/language-server`): the language server's
 * analysis worker imports it and asks, for each pipeline's directory, what the project adds. It finds the nearest
 * `attractor.config.{js,mjs,ts}` from that directory upwards and loads it as `attractor validate` does, so plug-in
 * handlers are linted in the editor as on the command line; and it offers the models of the price table (the built-in
 * one and the config's `defaults.prices`).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readTextFileSync } from '@attractor/engine/read-text-file';
import type { ProjectSupport } from '@attractor/language-server';
import { CONFIG_FILE_NAMES, lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';

/** Loads the config that applies to pipelines in `directory` (none: the built-in handlers only). */
export async function loadProject(options: { readonly directory: string }): Promise<ProjectSupport> {
  const root = configDirectory(options.directory);
  const config = await loadCliConfig({ cwd: root ?? options.directory });
  const lint = lintOptionsOf(config);
  const { DEFAULT_PRICES } = await import('@attractor/backend-ai-sdk');
  const models = new Set(Object.keys(DEFAULT_PRICES));
  if (config.defaults.prices !== undefined) {
    try {
      for (const model of Object.keys(JSON.parse(readTextFileSync(config.defaults.prices))))
        models.add(model);
    } catch {
      // An unreadable price table (also a FIFO, a device or one over 10 MB: only bounded reads) is reported when a
      // run reads it.
    }
  }
  return {
    ...(config.path === undefined ? {} : { configPath: config.path }),
    knownHandlerTypes: lint.knownHandlerTypes,
    handlers: lint.handlers,
    mcpServers: lint.mcpServers,
    models: [...models],
  };
}

/** The nearest directory from `directory` upwards that holds a config file. */
function configDirectory(directory: string): string | undefined {
  for (let current = directory; ; current = dirname(current)) {
    if (CONFIG_FILE_NAMES.some((name) => existsSync(join(current, name)))) return current;
    if (dirname(current) === current) return undefined;
  }
}
