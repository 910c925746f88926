/**
 * The new-run page: DOT text or a file of the server's pipelines directory, the pipeline's inputs and context values
 * (JSON objects, checked before they are sent), the model, and whether to simulate LLM stages — a box that shows what
 * the server will really do (`GET /server`): checked and locked when the server simulates every run or has no LLM,
 * free otherwise. Errors (invalid pipeline with its diagnostics, inputs refused, tools refused) appear under the form.
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
  const [inputsText, setInputsText] = useState('');
  const [contextText, setContextText] = useState('');
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
      const inputs = parseJsonObject(inputsText, 'inputs', 'inputs-input');
      const context = parseJsonObject(contextText, 'context values', 'context-input');
      const body = {
        ...(source === 'dot' ? { dot } : { file }),
        simulate,
        ...(model.trim() === '' ? {} : { model: model.trim() }),
        ...(inputs === undefined ? {} : { inputs }),
        ...(context === undefined ? {} : { context }),
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
        <label for="inputs-input">
          Inputs{' '}
          <span class="muted small">
            (a JSON object, for a pipeline that declares inputs, e.g. {'{'}"repo": "acme/api", "issue": 42
            {'}'})
          </span>
        </label>
        <textarea
          id="inputs-input"
          class="json-input"
          rows={3}
          spellcheck={false}
          placeholder="{}"
          value={inputsText}
          onInput={(event) => setInputsText(event.currentTarget.value)}
        />
        <label for="context-input">
          Context values <span class="muted small">(a JSON object of keys set before the first stage)</span>
        </label>
        <textarea
          id="context-input"
          class="json-input"
          rows={2}
          spellcheck={false}
          placeholder="{}"
          value={contextText}
          onInput={(event) => setContextText(event.currentTarget.value)}
        />
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

/**
 * The JSON object typed in a field of the form (`undefined` when it is empty or `{}`); throws an error saying what is
 * wrong with it (and focuses the field, `id`) when it is not JSON or not an object.
 */
function parseJsonObject(text: string, what: string, id: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    document.getElementById(id)?.focus();
    throw new Error(`The ${what} are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    document.getElementById(id)?.focus();
    throw new Error(`The ${what} must be a JSON object of name: value, e.g. {"issue": 42}.`);
  }
  return Object.keys(value).length === 0 ? undefined : (value as Record<string, unknown>);
}
