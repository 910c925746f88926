/**
 * What a project adds to the language server: the plug-in handlers of its `attractor.config.*` (their types and
 * declared attributes, for lint and completion) and the models it knows. The server loads it in its analysis worker
 * from a module that the host names (`attractor lsp` names the CLI's, which reads the config as `attractor validate`
 * does), so plug-ins are linted in the editor exactly as on the command line.
 */
import type { HandlerLintInfo } from '@attractor/graph';

/** What {@link ProjectModule.loadProject} returns for a directory. */
export interface ProjectSupport {
  /** The config file that was loaded (absolute), when there is one: the server reloads it when it changes. */
  readonly configPath?: string;
  /** Handler types lint accepts (`type_known`): the built-in ones and the plug-ins'. Default: the built-in ones. */
  readonly knownHandlerTypes?: Iterable<string>;
  /** What the plug-in handlers declare (attributes, outcomes, capabilities), by type. Default: none. */
  readonly handlers?: ReadonlyMap<string, HandlerLintInfo>;
  /** Model ids to offer for `llm_model` (a price table's). Default: none. */
  readonly models?: readonly string[];
  /** The MCP server names the config defines, for lint `mcp_server_known`. Default: none given, not checked. */
  readonly mcpServers?: Iterable<string>;
}

/**
 * The module a host names in `LanguageServerOptions.projectModule`. The server imports it in its analysis worker
 * (a worker thread) and calls `loadProject` with the directory of each pipeline it lints; the module finds the
 * project's config (from that directory upwards, or however it likes) and returns what it adds. A rejection is shown
 * on the pipeline as an error diagnostic with the rejection's message (a config that does not load), and the file is
 * linted without plug-ins.
 */
export interface ProjectModule {
  loadProject(options: { readonly directory: string }): Promise<ProjectSupport>;
}

/** What the editor features know about a project (plain data, sent from the worker). */
export interface ProjectFacts {
  /** The config file in use, if any. */
  readonly configPath?: string;
  /** Why the config did not load, when it did not. */
  readonly configError?: string;
  /** Every handler type lint accepts. */
  readonly handlerTypes: readonly string[];
  /** The plug-in handlers' declarations. */
  readonly handlers: readonly {
    readonly type: string;
    readonly attributeKeys: readonly string[];
    readonly outcomes?: readonly string[];
  }[];
  readonly models: readonly string[];
}
