export type {
  NormalizedMessage,
  RecordedRequest,
  ScriptedOpenAIServer,
  ScriptedOpenAIServerOptions,
  ScriptedReply,
  ScriptedStep,
  ScriptedToolCall,
  ScriptedUsage,
} from './scripted-openai-server.js';
export { startScriptedOpenAIServer } from './scripted-openai-server.js';
