/** The token state as a hook: re-renders when the token is set, rejected or forgotten. */
import { useEffect, useState } from 'preact/hooks';
import { auth } from './api.js';

/** The current token and the sign-in problem (when the dialog must show one). */
export function useAuth(): { token: string; problem: string | undefined } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((version) => version + 1);
    auth.listeners.add(listener);
    return () => auth.listeners.delete(listener);
  }, []);
  return { token: auth.token, problem: auth.problem };
}
