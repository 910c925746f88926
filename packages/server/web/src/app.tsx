/** The web UI's shell: header, sign-in dialog, and the page of the current route. */
import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError, apiJson, auth, type ServerInfo } from './api.js';
import { ConnectionStatus } from './connection-status.js';
import { ErrorNote } from './error-note.js';
import { NewRun } from './new-run.js';
import { onLinkClick, useRoute } from './router.js';
import { followRunChanges } from './run-changes.js';
import { RunList } from './run-list.js';
import { RunView } from './run-view.js';
import { SignIn } from './sign-in.js';
import { useAuth } from './use-auth.js';
import { useTheme } from './use-theme.js';

/** The whole app. */
export function App() {
  const route = useRoute();
  const { token, problem } = useAuth();
  const [server, setServer] = useState<ServerInfo | undefined>();
  const [serverError, setServerError] = useState<string | undefined>();
  const { theme, toggle: toggleTheme } = useTheme();

  useEffect(() => {
    if (token === '') return;
    apiJson<ServerInfo>('/server').then(setServer, (error: unknown) => {
      if (!(error instanceof ApiRequestError && error.status === 401))
        setServerError((error as Error).message);
    });
  }, [token]);
  // One stream on every page: the header's connection state, and the runs page's changes.
  useEffect(() => (token === '' ? undefined : followRunChanges()), [token]);

  const signedIn = token !== '';
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/" onClick={onLinkClick}>
          Attractor
        </a>
        <nav aria-label="Main">
          <a href="/" onClick={onLinkClick} aria-current={route.page === 'runs' ? 'page' : undefined}>
            Runs
          </a>
          <a href="/new" onClick={onLinkClick} aria-current={route.page === 'new' ? 'page' : undefined}>
            New run
          </a>
        </nav>
        <span class="spacer" />
        {signedIn && <ConnectionStatus />}
        <button
          type="button"
          class="button ghost"
          id="theme-toggle"
          aria-pressed={theme === 'dark'}
          title="Dark mode follows the system until you pick; the pick is remembered"
          onClick={toggleTheme}
        >
          Dark mode
        </button>
        {signedIn && (
          <button type="button" class="button ghost" id="sign-out" onClick={() => auth.set('')}>
            Sign out
          </button>
        )}
      </header>
      <SignIn open={!signedIn} problem={problem} />
      <main id="main" tabIndex={-1}>
        <ErrorNote message={serverError} />
        {signedIn &&
          (route.page === 'runs' ? (
            <RunList />
          ) : route.page === 'new' ? (
            <NewRun server={server} />
          ) : route.page === 'run' ? (
            <RunView
              key={`${route.runId}\u0000${route.child ?? ''}\u0000${route.branch ?? ''}`}
              runId={route.runId}
              child={route.child}
              branch={route.branch}
              stage={route.stage}
              server={server}
            />
          ) : (
            <section class="view">
              <h1>Not found</h1>
              <p>
                There is no page {route.path}.{' '}
                <a href="/" onClick={onLinkClick}>
                  See the runs
                </a>
                .
              </p>
            </section>
          ))}
      </main>
    </>
  );
}
