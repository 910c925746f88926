import { StylesheetSyntaxError } from './errors/stylesheet-syntax-error.js';

const SELECTOR = 'a selector: *, a shape name, #id or .class';

interface Explanation {
  readonly expected: string;
  readonly shortMessage: string;
  readonly fix?: string;
}

function explain(source: string, offset: number, ohmExpected: string): Explanation {
  const rest = source.slice(offset);
  const generic = (expected: string, fix?: string): Explanation => ({
    expected,
    shortMessage: `Expected ${expected}`,
    ...(fix ? { fix } : {}),
  });
  if (rest.startsWith('/*') && !rest.includes('*/')) {
    return { expected: '"*/"', shortMessage: 'Unterminated comment', fix: 'Close the comment with */.' };
  }
  if (/^["']/.test(rest) && !/^(?:"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*')/.test(rest)) {
    const quote = rest[0]!;
    return {
      expected: `"${quote}"`,
      shortMessage: 'Unterminated string',
      fix: `Close the string with ${quote}; write \\${quote} for a quote inside it.`,
    };
  }
  const atSelector = ohmExpected === 'end of input' || ohmExpected.includes(SELECTOR);
  if (atSelector && offset < source.length) {
    // Ohm may drop the selector that was also possible here (it failed inside an iteration).
    if (rest.startsWith('#')) return generic('a node id after "#"', 'Write #node_id, e.g. #review.');
    if (rest.startsWith('.')) return generic('a class name after "."', 'Write .class_name, e.g. .code.');
    return generic(`end of input or ${SELECTOR}`);
  }
  const previous = source.slice(0, offset).trimEnd().at(-1);
  if (ohmExpected === '"}"' && (previous === '{' || previous === ';')) {
    // Likewise for the property name that could start a declaration here.
    const fix = /^["']/.test(rest) ? 'Write the property name without quotes.' : undefined;
    return generic('"}" or a property name', fix);
  }
  if (rest.startsWith(',') && ohmExpected === '"{"') {
    return generic(ohmExpected, 'Selector lists are not supported: write one rule per selector.');
  }
  if (rest.startsWith('=') && ohmExpected === '":"') {
    return generic(ohmExpected, 'Write declarations as property: value, e.g. llm_model: claude-opus-4-6.');
  }
  if (ohmExpected === 'a value') {
    return generic(
      ohmExpected,
      'Write the value bare (letters, digits and _ . - : / @ +) or quoted, e.g. llm_model: "my model".',
    );
  }
  if (ohmExpected.includes('";"') && /^[A-Za-z0-9_]/.test(rest)) {
    return generic(ohmExpected, 'Separate declarations with ";", and quote a value that contains spaces.');
  }
  return generic(ohmExpected);
}

/**
 * Turns a failed stylesheet match (rightmost failure at `failureOffset`, Ohm's `expected` text and
 * source excerpt) into a {@link StylesheetSyntaxError} that says what was expected and, for the
 * common mistakes (selector lists, `=` for `:`, unterminated strings and comments), how to fix it.
 * Internal.
 */
export function explainStylesheetFailure(options: {
  readonly source: string;
  readonly failureOffset: number;
  readonly expected: string;
  readonly excerpt: string;
}): StylesheetSyntaxError {
  const { source, failureOffset: offset, excerpt } = options;
  const explanation = explain(source, offset, options.expected);
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const detail = explanation.shortMessage.charAt(0).toLowerCase() + explanation.shortMessage.slice(1);
  const message = [
    `Line ${line}, col ${column}: ${detail}.`,
    excerpt,
    ...(explanation.fix ? [`Fix: ${explanation.fix}`] : []),
  ].join('\n');
  return new StylesheetSyntaxError({
    source,
    location: { offset, line, column },
    shortMessage: explanation.shortMessage,
    expected: explanation.expected,
    message,
  });
}
