import { describe, expect, it } from 'vitest';
import { EncodedDiagnostics, encodeMessage } from './encoded-diagnostics.js';

const DIAGNOSTICS = [
  {
    range: { start: { line: 1, character: 2 }, end: { line: 1, character: 7 } },
    severity: 2,
    code: 'condition_coverage',
    source: 'attractor',
    message: 'No edge for « fail » ($ and \\ kept)\nfix: add one',
    data: {},
  },
];

describe('encodeMessage', () => {
  it('writes encoded diagnostics as their bytes, without decoding them', () => {
    const params = { uri: 'file:///tmp/caf\u00e9 a%20b.dot', version: 3 };
    // Laid out as `JSON.stringify` would not: a decoded and encoded again array would lose the line breaks.
    const json = JSON.stringify(DIAGNOSTICS, undefined, 1);
    const message = {
      jsonrpc: '2.0',
      method: 'textDocument/publishDiagnostics',
      params: { ...params, diagnostics: new EncodedDiagnostics(new TextEncoder().encode(json)) },
    };
    const encoded = encodeMessage(message).toString('utf8');
    expect(encoded).toBe(
      `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/caf\u00e9 a%20b.dot","version":3,"diagnostics":${json}}}`,
    );
    expect(JSON.parse(encoded)).toEqual({ ...message, params: { ...params, diagnostics: DIAGNOSTICS } });
  });

  it('encodes any other message as JSON.stringify does', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { contents: 'a "quoted" value', diagnostics: [] } };
    expect(encodeMessage(message).toString('utf8')).toBe(JSON.stringify(message));
  });
});
