/**
 * Finds the quote that probably ended a string too early: shell code in `tool_command="grep -q "ok" out.txt"` closes
 * the string at the `"` before `ok`, and the parser then fails on what follows. Used to explain such failures.
 */

/**
 * The offset of the closing quote of a string that the token at `offset` follows (a string value directly followed
 * by more text is not followed by a separator: `,`, `;`, `]`, a newline), or undefined when the text before the token
 * is not the end of a string. With `adjacent`, only a token right after the quote counts; otherwise spaces and tabs
 * may come between. Quotes in comments are skipped.
 */
export function closingQuoteBefore(
  source: string,
  offset: number,
  options: { readonly adjacent?: boolean } = {},
): number | undefined {
  let quote = offset - 1;
  if (options.adjacent !== true) {
    while (quote >= 0 && (source[quote] === ' ' || source[quote] === '\t')) quote -= 1;
  }
  if (quote < 0 || source[quote] !== '"') return undefined;
  return closesString(source, quote) ? quote : undefined;
}

/** Whether the `"` at `quote` closes a string (rather than opening one), reading from the start of `source`. */
function closesString(source: string, quote: number): boolean {
  let inString = false;
  for (let index = 0; index < quote; index += 1) {
    const character = source[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '/' && source[index + 1] === '/') {
      const end = source.indexOf('\n', index);
      index = end === -1 ? quote : end;
    } else if (character === '/' && source[index + 1] === '*') {
      const end = source.indexOf('*/', index + 2);
      index = end === -1 ? quote : end + 1;
    }
  }
  return inString;
}

/** The short message and hint of a syntax error caused by a string that ended early at `quote`. */
export function earlyClosingQuoteMessage(found: string): { shortMessage: string; hint: string } {
  return {
    shortMessage: `A string probably ended too early: this " closes it, and ${found} follows where a "," "]" or new attribute was expected`,
    hint: 'A " inside a value ends the string: write it as \\" (e.g. tool_command="grep -q \\"ok\\" out.txt"), or use single quotes in shell code.',
  };
}
