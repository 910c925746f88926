/**
 * Reads an agent's JSONL output (Codex `exec --json`, Gemini CLI `--output-format stream-json`) line by line.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** One line of output: the parsed object, or the raw text of a line that is not a JSON object. */
export type JsonLine = { readonly json: Readonly<Record<string, unknown>> } | { readonly text: string };

/** Yields each non-empty line of `stream` as it arrives. */
export async function* readJsonLines(stream: Readable): AsyncGenerator<JsonLine> {
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      yield { text: trimmed };
      continue;
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      yield { json: parsed as Record<string, unknown> };
    } else yield { text: trimmed };
  }
}
