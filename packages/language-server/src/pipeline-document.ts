import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PipelineIndex } from './pipeline-index.js';
import type { ProjectFacts } from './project-support.js';

/** An open pipeline as the editor features see it. */
export interface PipelineDocument {
  /** The text and its positions (line and character, UTF-16). */
  readonly document: TextDocument;
  readonly index: PipelineIndex;
  /** Its absolute path, for a `file:` document. */
  readonly filename?: string;
  /** Its project's plug-ins and models, as of its last analysis. */
  readonly project: ProjectFacts;
}
