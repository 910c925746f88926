/**
 * Who answers Ctrl-C. `bin.ts` exits with 130 on SIGINT unless a command has taken interrupts over (a run aborts its
 * stage first, `serve` and `worker` stop cleanly). Libraries add SIGINT listeners of their own (`signal-exit`, which
 * a lock library loads, listens and then does nothing while another listener exists), so counting listeners cannot
 * tell whether anyone will act: a command's listener carries a mark instead. The mark is a registered symbol, so the
 * bundled `bin.ts` and the unbundled command modules agree on it.
 */

const MARK: unique symbol = Symbol.for('@attractor/cli.interrupt-listener') as never;

/** A signal listener marked as the command's own. */
type Marked<T> = T & { [MARK]?: true };

/**
 * Marks `listener` as the command's own handling of interrupts and returns it, for `process.on(signal, ...)`: while it
 * is installed, `bin.ts` leaves SIGINT to it.
 *
 * @example
 * process.on('SIGINT', claimInterrupt(onSignal));
 */
export function claimInterrupt<T extends (...args: never[]) => void>(listener: T): T {
  (listener as Marked<T>)[MARK] = true;
  return listener;
}

/** Whether a listener marked by {@link claimInterrupt} is installed for `signal`. */
export function interruptClaimed(signal: NodeJS.Signals): boolean {
  return process.listeners(signal).some((listener) => (listener as Marked<typeof listener>)[MARK] === true);
}
