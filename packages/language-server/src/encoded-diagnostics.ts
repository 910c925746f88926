/**
 * Diagnostics that the analysis worker has already encoded as JSON, and the message writer that writes them to the
 * client as they are: a large file's thousands of diagnostics are neither decoded nor encoded again on the main
 * thread, which answers the editor's other requests meanwhile.
 */
import { randomUUID } from 'node:crypto';
import {
  type ContentTypeEncoder,
  type Diagnostic,
  type Message,
  StreamMessageWriter,
} from 'vscode-languageserver/node';

/** An array of LSP diagnostics as JSON in UTF-8, from the analysis worker. */
export class EncodedDiagnostics {
  /** @param utf8 - A JSON array of LSP `Diagnostic`s, encoded in UTF-8. */
  constructor(readonly utf8: Uint8Array) {}

  /** The diagnostics decoded (`JSON.stringify` calls it, so a message traced or encoded elsewhere holds them). */
  toJSON(): Diagnostic[] {
    return JSON.parse(new TextDecoder().decode(this.utf8)) as Diagnostic[];
  }
}

/** Stands for an {@link EncodedDiagnostics} in the encoded message until its bytes are put in its place. */
const PLACEHOLDER = `attractor-encoded-diagnostics-${randomUUID()}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/**
 * Encodes a JSON-RPC message in UTF-8 as `JSON.stringify` would, except that the `diagnostics` parameter, when it is an
 * {@link EncodedDiagnostics}, is written as its bytes without being decoded.
 */
export function encodeMessage(message: Message): Buffer {
  const params = (message as { readonly params?: unknown }).params;
  if (
    typeof params !== 'object' ||
    params === null ||
    !((params as { readonly diagnostics?: unknown }).diagnostics instanceof EncodedDiagnostics)
  ) {
    return Buffer.from(JSON.stringify(message), 'utf8');
  }
  const { utf8 } = (params as { readonly diagnostics: EncodedDiagnostics }).diagnostics;
  const encoded = JSON.stringify({ ...message, params: { ...params, diagnostics: PLACEHOLDER } });
  const at = encoded.indexOf(PLACEHOLDER_JSON);
  const before = encoded.slice(0, at);
  const after = encoded.slice(at + PLACEHOLDER_JSON.length);
  const beforeLength = Buffer.byteLength(before, 'utf8');
  const buffer = Buffer.allocUnsafe(beforeLength + utf8.length + Buffer.byteLength(after, 'utf8'));
  buffer.write(before, 0, 'utf8');
  buffer.set(utf8, beforeLength);
  buffer.write(after, beforeLength + utf8.length, 'utf8');
  return buffer;
}

/** The server's messages are written in UTF-8 (the base protocol's default charset). */
const ENCODER: ContentTypeEncoder = {
  name: 'application/json',
  encode: (message) => {
    try {
      return Promise.resolve(encodeMessage(message));
    } catch (error) {
      return Promise.reject(error);
    }
  },
};

/** The writer of the server's messages to `output` (LSP's base protocol), with {@link encodeMessage}. */
export function createMessageWriter(output: NodeJS.WritableStream): StreamMessageWriter {
  return new StreamMessageWriter(output, { charset: 'utf-8', contentTypeEncoder: ENCODER });
}
