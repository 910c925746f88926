/**
 * The options of `attractor runs`, apart from its module so that main.ts can name them without loading it.
 */

/** Options of `attractor runs`. */
export interface RunsCliOptions {
  readonly status?: string;
  readonly graph?: string;
  readonly json?: boolean;
  readonly queue?: string;
  readonly store?: string;
  /** Runs per page; 0: all. Default: {@link DEFAULT_PAGE_SIZE}. */
  readonly limit?: number;
  /** Which page, from 1. Default: 1. */
  readonly page?: number;
}

/** Runs `attractor runs` prints when `--limit` is not given. */
export const DEFAULT_PAGE_SIZE = 50;
