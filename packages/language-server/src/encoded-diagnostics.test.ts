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
  it('writes encoded diagnostics as the JSON of the decoded ones', () => {
    const params = { uri: 'file:///tmp/caf\u00e9 a%20b.dot', version: 3 };
    const message = {
      jsonrpc: '2.0',
      method: 'textDocument/publishDiagnostics',
      params: {
        ...params,
        diagnostics: new EncodedDiagnostics(new TextEncoder().encode(JSON.stringify(DIAGNOSTICS))),
      },
    };
    const encoded = encodeMessage(message).toString('utf8');
    expect(JSON.parse(encoded)).toEqual({ ...message, params: { ...params, diagnostics: DIAGNOSTICS } });
    expect(encoded).toBe(JSON.stringify(message));
  });

  it('encodes any other message as JSON.stringify does', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { contents: 'a "quoted" value', diagnostics: [] } };
    expect(encodeMessage(message).toString('utf8')).toBe(JSON.stringify(message));
  });
});
