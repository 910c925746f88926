import type { Readable, Writable } from 'node:stream';
import { prepareGraph } from '@attractor/graph';
import { startLanguageServer } from '@attractor/language-server';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { displayPath } from '../load-pipeline.js';
import { createGraphFileReader } from '../read-source-file.js';
import { renderSvg } from '../render/render-svg.js';

/**
 * `attractor lsp`: the language server of `@attractor/language-server` on standard input and output (the Language
 * Server Protocol's stdio transport), for any editor. Pipelines are linted with the plug-ins of the
 * `attractor.config.{js,mjs,ts}` found from each pipeline's directory upwards (`lsp-project.ts`), and the preview
 * renders them as `attractor render` does. Runs until the editor asks it to exit (the server then ends the process).
 *
 * `io` must be the process's own streams, unmasked: the protocol's messages are counted in bytes.
 */
export async function lspCommand(options: { readonly io: CliIo }): Promise<number> {
  const output = options.io.stdout as unknown as Writable;
  if (typeof output.on !== 'function') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: 'attractor lsp talks over the standard streams of a process.',
    });
  }
  const { cwd } = options.io;
  const server = startLanguageServer({
    input: options.io.stdin as Readable,
    output,
    projectModule: new URL('./lsp-project.js', import.meta.url).href,
    render: async ({ source, filename }) => {
      const name = filename === undefined ? 'the pipeline' : displayPath(filename, cwd);
      // A graph with lint errors still has a shape worth seeing: only one that does not parse has none.
      const { graph } = prepareGraph(source, {
        ...(filename === undefined ? {} : { filename, readGraphFile: createGraphFileReader(cwd) }),
      });
      if (graph === undefined) throw new Error(`${name} does not parse: fix the syntax error to preview it.`);
      return renderSvg(graph, { name });
    },
  });
  await server.shutDown;
  return 0;
}
