/**
 * The stage's `response.md` (spec §4.5, §11.13), the agent's final reply, and `prompt.md`, the whole prompt sent
 * to the model (system prompt, earlier turns of a `full` thread, preamble and the node's prompt). The backend
 * writes both, so the artifacts show what the model really saw and said.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';

/** File the final reply is written to in the stage directory. */
export const RESPONSE_FILE = 'response.md';

/** File the whole prompt is written to in the stage directory. */
export const PROMPT_FILE = 'prompt.md';

/** Writes `{stageDir}/response.md` (UTF-8), replacing an earlier attempt's. */
export async function writeResponseFile(stageDir: string, text: string): Promise<void> {
  await writeFile(join(stageDir, RESPONSE_FILE), text, 'utf8');
}

function messageText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-call') return `[tool call ${part.toolName} ${JSON.stringify(part.input)}]`;
      if (part.type === 'tool-result') return `[tool result ${part.toolName}]`;
      return `[${part.type}]`;
    })
    .join('\n');
}

/**
 * The prompt as Markdown: `## system` then one `## <role>` section per message, oldest first. Secrets are masked
 * by the caller's `redact`. Pure.
 */
export function formatPrompt(system: string, messages: readonly ModelMessage[]): string {
  const sections = [`## system\n\n${system}`];
  for (const message of messages) sections.push(`## ${message.role}\n\n${messageText(message)}`);
  return `${sections.join('\n\n')}\n`;
}

/** Writes `{stageDir}/prompt.md` with {@link formatPrompt}, replacing the node-prompt-only file of the handler. */
export async function writePromptFile(stageDir: string, text: string): Promise<void> {
  await writeFile(join(stageDir, PROMPT_FILE), text, 'utf8');
}
