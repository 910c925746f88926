/**
 * The new-run page: DOT text or a file of the server's pipelines directory, the model, and whether to simulate LLM
 * stages — a box that shows what the server will really do (`GET /server`): checked and locked when the server
 * simulates every run or has no LLM, free otherwise. Errors (invalid pipeline with its diagnostics, tools refused)
 * appear under the form.
 */
import { useEffect, useState } from 'preact/hooks';
import { apiJson, type RunSummary, type ServerInfo } from './api.js';
import { ErrorNote } from './error-note.js';
import { navigate, runHref } from './router.js';

/** The new-run page. */
export function NewRun({ server }: { server: ServerInfo | undefined }) {
  const [source, setSource] = useState<'dot' | 'file'>('dot');
  const [dot, setDot] = useState('');
  const [files, setFiles] = useState<string[] | undefined>();
  const [file, setFile] = useState('');
  const [model, setModel] = useState('');
  const [simulateChoice, setSimulateChoice] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    if (server?.pipelinesDirectory !== true) return;
    apiJson<{ files: string[] }>('/pipeline-files').then(
      (body) => {
        setFiles(body.files);
        setFile((current) => current || (body.files[0] ?? ''));
      },
      (failure: unknown) => setError((failure as Error).message),
    );
  }, [server?.pipelinesDirectory]);

  const locked = server !== undefined && server.simulation !== 'optional';
  const simulate = locked || simulateChoice;
  const note =
    server?.simulation === 'always'
      ? 'This server simulates every LLM stage (it was started with --simulate).'
      : server?.simulation === 'required'
        ? 'This server has no LLM configured, so LLM stages are simulated.'
        : 'LLM stages call the configured model unless you tick this.';

  const start = async (event: Event) => {
    event.preventDefault();
    setStarting(true);
    setError(undefined);
    try {
      const body = {
        ...(source === 'dot' ? { dot } : { file }),
        simulate,
        ...(model.trim() === '' ? {} : { model: model.trim() }),
      };
      const run = await apiJson<RunSummary>('/pipelines', { method: 'POST', body: JSON.stringify(body) });
      navigate(runHref(run.id));
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setStarting(false);
    }
  };

  return (
    <section class="view" aria-labelledby="new-title">
      <h1 id="new-title">Start a pipeline</h1>
      <form id="start-form" class="card" onSubmit={start}>
        <fieldset class="source-choice">
          <legend>Source</legend>
          <label>
            <input
              type="radio"
              name="source"
              value="dot"
              checked={source === 'dot'}
              onChange={() => setSource('dot')}
            />{' '}
            DOT text
          </label>
          <label>
            <input
              type="radio"
              name="source"
              value="file"
              id="source-file-radio"
              checked={source === 'file'}
              onChange={() => setSource('file')}
            />{' '}
            Pipeline file
          </label>
        </fieldset>
        {source === 'dot' ? (
          <>
            <label for="dot-input">Pipeline (DOT)</label>
            <textarea
              id="dot-input"
              rows={16}
              spellcheck={false}
              placeholder="digraph pipeline { ... }"
              value={dot}
              onInput={(event) => setDot(event.currentTarget.value)}
            />
          </>
        ) : server?.pipelinesDirectory === true ? (
          <>
            <label for="file-select">Pipeline file</label>
            <select id="file-select" value={file} onChange={(event) => setFile(event.currentTarget.value)}>
              {(files ?? []).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        ) : (
          <p class="muted">The server has no pipelines directory (start it with --pipelines &lt;dir&gt;).</p>
        )}
        <div class="options">
          <label>
            <input
              type="checkbox"
              id="simulate-input"
              checked={simulate}
              disabled={locked}
              aria-describedby="simulate-note"
              onChange={(event) => setSimulateChoice(event.currentTarget.checked)}
            />{' '}
            Simulate LLM stages
          </label>
          <span class="muted small" id="simulate-note">
            {note}
          </span>
          <label>
            Model{' '}
            <input
              type="text"
              id="model-input"
              placeholder="(pipeline default)"
              value={model}
              disabled={simulate}
              onInput={(event) => setModel(event.currentTarget.value)}
            />
          </label>
        </div>
        <ErrorNote message={error} id="start-error" preformatted />
        <div class="actions">
          <button type="submit" class="button" id="start-button" disabled={starting}>
            {starting ? 'Starting…' : 'Start run'}
          </button>
        </div>
      </form>
    </section>
  );
}
