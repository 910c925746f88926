import picocolors from 'picocolors';

/** The colour functions of picocolors, possibly disabled. */
export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Colour functions, enabled or not. The CLI enables them when picocolors says the terminal supports colour
 * (it honours `NO_COLOR`, `FORCE_COLOR`, `--no-color` and whether stdout is a TTY).
 */
export function createColors(enabled: boolean): Colors {
  return picocolors.createColors(enabled);
}

/** Whether picocolors detected colour support for this process. */
export function detectColorSupport(): boolean {
  return picocolors.isColorSupported;
}
