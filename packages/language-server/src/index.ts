export { ANALYSIS_PHASE_PREFIX, type AnalysisPhaseName } from './analysis-phase.js';
export type { DiagnosticData } from './analyze-pipeline.js';
export type { ProjectModule, ProjectSupport } from './project-support.js';
export {
  type LanguageServer,
  type LanguageServerOptions,
  RENDER_REQUEST,
  type RenderParams,
  type RenderResult,
  startLanguageServer,
} from './start-language-server.js';
