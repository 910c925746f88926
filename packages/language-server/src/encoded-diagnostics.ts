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

/** An array of LSP diagnostics as JSON text, from the analysis worker. */
export class EncodedDiagnostics {
  /** @param json - A JSON array of LSP `Diagnostic`s. */
  constructor(readonly json: string) {}

  /** The diagnostics decoded (`JSON.stringify` calls it, so a message traced or encoded elsewhere holds them). */
  toJSON(): Diagnostic[] {
    return JSON.parse(this.json) as Diagnostic[];
  }
}

/** Stands for an {@link EncodedDiagnostics} in the encoded message until its text is put in its place. */
const PLACEHOLDER = `attractor-encoded-diagnostics-${randomUUID()}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/**
 * Encodes a JSON-RPC message as `JSON.stringify` does, except that the `diagnostics` parameter, when it is an
 * {@link EncodedDiagnostics}, is written as its JSON text without being decoded.
 */
export function encodeMessage(message: Message): string {
  const params = (message as { readonly params?: unknown }).params;
  if (
    typeof params !== 'object' ||
    params === null ||
    !((params as { readonly diagnostics?: unknown }).diagnostics instanceof EncodedDiagnostics)
  ) {
    return JSON.stringify(message);
  }
  const { json } = (params as { readonly diagnostics: EncodedDiagnostics }).diagnostics;
  const encoded = JSON.stringify({ ...message, params: { ...params, diagnostics: PLACEHOLDER } });
  return encoded.replace(PLACEHOLDER_JSON, () => json);
}

const ENCODER: ContentTypeEncoder = {
  name: 'application/json',
  encode: (message, options) => {
    try {
      return Promise.resolve(Buffer.from(encodeMessage(message), options.charset));
    } catch (error) {
      return Promise.reject(error);
    }
  },
};

/** The writer of the server's messages to `output` (LSP's base protocol), with {@link encodeMessage}. */
export function createMessageWriter(output: NodeJS.WritableStream): StreamMessageWriter {
  return new StreamMessageWriter(output, { charset: 'utf-8', contentTypeEncoder: ENCODER });
}
