/**
 * The header's connection indicator: live, connecting, reconnecting or offline (in words; the dot only repeats it),
 * and how long ago the last event came. The state is a polite live region; the ticking age is outside it, so a screen
 * reader hears a change of state, not every second.
 */
import { useEffect, useState } from 'preact/hooks';
import { type StreamState, useConnection } from './connection-state.js';

const LABELS: Readonly<Record<StreamState, string>> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline: the server cannot be reached, retrying',
};

/** The indicator (nothing when no stream is open). */
export function ConnectionStatus() {
  const { state, lastEventAt } = useConnection();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (lastEventAt === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [lastEventAt]);
  if (state === undefined) return null;
  const age = lastEventAt === undefined ? undefined : Math.max(0, Math.floor((now - lastEventAt) / 1000));
  return (
    <span class="connection" data-state={state}>
      <span class="connection-dot" aria-hidden="true" />
      <span role="status" id="connection-status" data-state={state}>
        {LABELS[state]}
      </span>
      {age !== undefined && (
        <span class="connection-age" id="connection-age">
          last event{' '}
          {age < 60 ? `${age} s` : age < 3600 ? `${Math.floor(age / 60)} min` : `${Math.floor(age / 3600)} h`}{' '}
          ago
        </span>
      )}
    </span>
  );
}
