/**
 * The ConsoleInterviewer of spec §6.4: asks on a terminal with node:readline.
 */
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Answer, AskOptions, Interviewer, Question, QuestionOption } from '@attractor/engine';
import { formatDuration } from '@attractor/engine';
import { findQuestionOption, keyedLabel } from '../human-gate-choices.js';

/** Options of {@link createConsoleInterviewer}. */
export interface ConsoleInterviewerOptions {
  /** Where answers are read, line by line. Default: `process.stdin`. */
  readonly input?: Readable & { readonly isTTY?: boolean };
  /** Where questions are written. Default: `process.stdout`. */
  readonly output?: Writable;
  /**
   * Read answers from `input` even when it is not a terminal (answers piped in, one per line). Default: false, so
   * asking on a non-terminal input rejects with an explanation instead of blocking or reading garbage.
   */
  readonly allowNonInteractive?: boolean;
}

/** A ConsoleInterviewer; call `close()` when the run is over so the input no longer holds the process open. */
export interface ConsoleInterviewer extends Interviewer {
  close(): void;
}

/**
 * Creates the ConsoleInterviewer of spec §6.4. It prints `[?] <question>`, one `[K] label` line per option (the
 * label alone when it already starts with its key's accelerator, `[K] `, `K) ` or `K - `), the
 * timeout and default when set, then reads one line: an option key or label (case-insensitive) for multiple
 * choice, `y`/`yes`/`n`/`no` for yes/no and confirmation, any text for free text. An empty line takes the
 * question's default when it has one; an unrecognised answer is asked again. Timeouts are applied by the
 * engine's wrapper, which aborts the pending read (the signal in `ask`'s options).
 *
 * @throws (as a rejection of `ask`) an error with `retryable: false` when the input is not a terminal and
 *   `allowNonInteractive` is false, or when the input ends before an answer.
 * @example
 * const interviewer = createConsoleInterviewer();
 * try { await runPipeline({ graph, registry, logsRoot, interviewer }); } finally { interviewer.close(); }
 */
export function createConsoleInterviewer(options: ConsoleInterviewerOptions = {}): ConsoleInterviewer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  let reader: Interface | undefined;
  const buffered: string[] = [];
  let waiter: ((line: string | undefined) => void) | undefined;
  let ended = false;

  const ensureReader = (): Interface => {
    if (reader !== undefined) return reader;
    reader = createInterface({ input, terminal: false });
    reader.on('line', (line) => {
      const take = waiter;
      waiter = undefined;
      if (take === undefined) buffered.push(line);
      else take(line);
    });
    reader.on('close', () => {
      ended = true;
      const take = waiter;
      waiter = undefined;
      take?.(undefined);
    });
    return reader;
  };

  const readLine = async (prompt: string, signal: AbortSignal | undefined): Promise<string | undefined> => {
    output.write(prompt);
    const lines = ensureReader();
    if (buffered.length > 0) return buffered.shift();
    if (ended) return undefined;
    signal?.throwIfAborted();
    lines.resume();
    try {
      return await new Promise<string | undefined>((resolve, reject) => {
        waiter = resolve;
        signal?.addEventListener(
          'abort',
          () => {
            waiter = undefined;
            output.write('\n');
            reject(signal.reason);
          },
          { once: true },
        );
      });
    } finally {
      if (!ended) lines.pause();
    }
  };

  const ask = async (question: Question, askOptions?: AskOptions): Promise<Answer> => {
    if (options.allowNonInteractive !== true && input.isTTY !== true) {
      throw Object.assign(
        new Error(
          `Cannot ask "${question.text}" (node ${question.stage}): standard input is not an interactive terminal. Queue the answers instead (QueueInterviewer; CLI --answer <key>) or auto-approve (CLI --auto-approve).`,
        ),
        { retryable: false },
      );
    }
    output.write(`\n[?] ${question.text}\n`);
    for (const option of question.options) output.write(`  ${keyedLabel(option)}\n`);
    const hints = [
      ...(question.timeoutMs === undefined ? [] : [`times out in ${formatDuration(question.timeoutMs)}`]),
      ...(question.default === undefined ? [] : [`default: ${question.default.value}`]),
    ];
    if (hints.length > 0) output.write(`  (${hints.join('; ')})\n`);
    const prompt =
      question.type === 'multiple_choice' ? 'Select: ' : question.type === 'freeform' ? '> ' : '[Y/N]: ';
    while (true) {
      const line = await readLine(prompt, askOptions?.abortSignal);
      if (line === undefined) {
        throw Object.assign(
          new Error(
            `Standard input ended before an answer to "${question.text}" (node ${question.stage}) was given.`,
          ),
          { retryable: false },
        );
      }
      const text = line.trim();
      if (text === '' && question.default !== undefined) return question.default;
      const answer = interpret(question, text);
      if (answer !== undefined) return answer;
      output.write(
        question.type === 'multiple_choice'
          ? `Unknown choice "${text}". Enter one of: ${question.options.map((option) => option.key).join(', ')}\n`
          : 'Please answer y or n.\n',
      );
    }
  };

  return {
    ask,
    inform: (message, stage) => {
      output.write(`[i] ${stage}: ${message}\n`);
    },
    close: () => {
      reader?.close();
      reader = undefined;
    },
  };
}

function interpret(question: Question, text: string): Answer | undefined {
  if (question.type === 'freeform') return { value: text, text };
  if (question.type === 'yes_no' || question.type === 'confirmation') {
    const word = text.toLowerCase();
    if (word === 'y' || word === 'yes') return { value: 'yes' };
    if (word === 'n' || word === 'no') return { value: 'no' };
    return undefined;
  }
  const option: QuestionOption | undefined = findQuestionOption(question, text);
  return option === undefined ? undefined : { value: option.key, selectedOption: option };
}
