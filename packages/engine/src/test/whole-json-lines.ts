/**
 * Whether a JSON-lines text (`events.jsonl`, `checkpoints.jsonl`) holds only whole lines: it is empty or ends with a
 * newline, and every non-empty line parses as JSON. For tests of what a crash or a full disk leaves behind.
 *
 * @example
 * expect(wholeJsonLines(readFileSync(join(run, 'checkpoints.jsonl'), 'utf8'))).toBe(true);
 */
export function wholeJsonLines(text: string): boolean {
  if (text !== '' && !text.endsWith('\n')) return false;
  return text
    .split('\n')
    .filter((line) => line !== '')
    .every((line) => {
      try {
        JSON.parse(line);
        return true;
      } catch {
        return false;
      }
    });
}
