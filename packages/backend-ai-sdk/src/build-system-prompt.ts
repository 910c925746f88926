/**
 * The system prompt of an agent stage, layered as in coding-agent-loop-spec §6.1: base instructions, the
 * environment block of §6.3, the tools in use, project instructions (§6.5), then the user's own instructions.
 */

/** Options of {@link buildSystemPrompt}. */
export interface BuildSystemPromptOptions {
  readonly nodeId: string;
  readonly nodeLabel: string;
  readonly goal: string;
  readonly workdir: string;
  readonly platform: string;
  /** Today's date, `YYYY-MM-DD`. */
  readonly date: string;
  readonly modelId: string;
  readonly toolNames: readonly string[];
  readonly reportOutcome: boolean;
  /** Contents of AGENTS.md and friends; empty for none. */
  readonly projectInstructions: string;
  /** Appended last (highest precedence). */
  readonly instructions?: string;
}

/** Builds the system prompt text. Pure. */
export function buildSystemPrompt(options: BuildSystemPromptOptions): string {
  const hasTools = options.toolNames.length > 0;
  const sections: string[] = [
    [
      `You are a coding agent carrying out one stage ("${options.nodeLabel}", node ${options.nodeId}) of an Attractor pipeline.`,
      options.goal === '' ? '' : `The pipeline's goal: ${options.goal}`,
      hasTools
        ? 'Work in the working directory with your tools: read before you edit, prefer edit_file for small changes, and verify your work (e.g. run the tests with shell). Paths are relative to the working directory; anything outside it is refused.'
        : 'Answer in text only; this stage has no tools.',
      'When you are done, reply with a short summary of what you did; that reply is the stage result.',
      options.reportOutcome
        ? 'If the stage cannot be completed, needs another attempt, or should take a particular route, call report_outcome (outcome fail, retry, success, ...) as your last action.'
        : '',
    ]
      .filter((line) => line !== '')
      .join('\n'),
    [
      '<environment>',
      `Working directory: ${options.workdir}`,
      `Platform: ${options.platform}`,
      `Today's date: ${options.date}`,
      `Model: ${options.modelId}`,
      '</environment>',
    ].join('\n'),
  ];
  if (hasTools)
    sections.push(
      `Tools: ${[...options.toolNames, ...(options.reportOutcome ? ['report_outcome'] : [])].join(', ')}.`,
    );
  if (options.projectInstructions !== '')
    sections.push(`Project instructions:\n\n${options.projectInstructions}`);
  if (options.instructions !== undefined && options.instructions.trim() !== '')
    sections.push(options.instructions.trim());
  return sections.join('\n\n');
}
