export type { CliIo, TextOutput } from './cli-io.js';
export { processIo } from './cli-io.js';
export type { CliErrorCode, CliErrorOptions } from './errors/cli-error.js';
export { CliError } from './errors/cli-error.js';
export type { MainOptions } from './main.js';
export { EXIT_CODES, main } from './main.js';
