// The Attractor web UI: plain ES module, no build step. Every API call carries the bearer token, which the page
// asks for once and keeps in sessionStorage (this tab only). Run events arrive over a fetch-based SSE reader, so the
// token travels in a header, never in a URL; on a dropped connection it reconnects with Last-Event-ID.

const TOKEN_KEY = 'attractor.token';
const $ = (id) => document.getElementById(id);

let token = sessionStorage.getItem(TOKEN_KEY) ?? '';
let tokenWaiters = [];
let currentRun; // { id, controller, lastSeq, ... }
let listTimer;

// ---------- API ----------

class UnauthorizedError extends Error {}

async function api(path, init = {}) {
  if (token === '') await askForToken();
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${token}`);
  if (init.body !== undefined && !headers.has('Content-Type'))
    headers.set('Content-Type', 'application/json');
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    forgetToken('That token was not accepted.');
    throw new UnauthorizedError('unauthorized');
  }
  return response;
}

async function apiJson(path, init) {
  const response = await api(path, init);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body?.error?.message ?? `${response.status} ${response.statusText}`);
    error.code = body?.error?.code;
    throw error;
  }
  return body;
}

// ---------- token ----------

function askForToken(message) {
  const dialog = $('token-dialog');
  $('token-error').hidden = message === undefined;
  $('token-error').textContent = message ?? '';
  if (!dialog.open) dialog.showModal();
  $('token-input').focus();
  return new Promise((resolve) => tokenWaiters.push(resolve));
}

function forgetToken(message) {
  token = '';
  sessionStorage.removeItem(TOKEN_KEY);
  askForToken(message);
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = $('token-input').value.trim();
  if (value === '') return;
  token = value;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token-input').value = '';
  $('token-dialog').close();
  const waiters = tokenWaiters;
  tokenWaiters = [];
  for (const resolve of waiters) resolve();
  route();
});
$('token-dialog').addEventListener('cancel', (event) => event.preventDefault());
$('forget-token').addEventListener('click', () => forgetToken());

// ---------- helpers ----------

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return date.toLocaleString(undefined, { hour12: false });
}

function shortTime(iso) {
  return iso ? new Date(iso).toLocaleTimeString(undefined, { hour12: false }) : '';
}

function throttle(fn, ms) {
  let timer;
  let again = false;
  return () => {
    if (timer !== undefined) {
      again = true;
      return;
    }
    fn();
    timer = setTimeout(() => {
      timer = undefined;
      if (again) {
        again = false;
        fn();
      }
    }, ms);
  };
}

// ---------- runs list ----------

async function refreshRunList() {
  let body;
  try {
    body = await apiJson('/pipelines');
  } catch {
    return;
  }
  const list = $('run-list');
  list.replaceChildren(
    ...body.pipelines.map((run) =>
      el(
        'li',
        {},
        el(
          'a',
          {
            href: `#/runs/${encodeURIComponent(run.id)}`,
            class: currentRun?.id === run.id ? 'selected' : '',
            dataset: { runId: run.id },
          },
          el(
            'span',
            { class: 'name' },
            el('span', {}, run.graphName),
            el('span', { class: `badge ${run.state}` }, run.state),
          ),
          el('span', { class: 'meta' }, `${formatTime(run.startedAt)} · ${run.id}`),
        ),
      ),
    ),
  );
  $('run-list-empty').hidden = body.pipelines.length > 0;
}

// ---------- new run ----------

async function showNewRun() {
  const select = $('file-select');
  try {
    const { files } = await apiJson('/pipeline-files');
    select.replaceChildren(...files.map((file) => el('option', { value: file }, file)));
    $('file-empty').hidden = files.length > 0;
    select.hidden = files.length === 0;
  } catch {
    // The list stays empty.
  }
  if ($('dot-input').value === '') $('dot-input').value = EXAMPLE_DOT;
}

const EXAMPLE_DOT = `digraph review {
  goal = "Ship a reviewed change"
  start   [shape=Mdiamond]
  draft   [label="Draft the change", prompt="Draft the change for: $goal"]
  approve [shape=hexagon, label="Approve the draft?"]
  done    [shape=Msquare]

  start -> draft -> approve
  approve -> done  [label="[A] Approve"]
  approve -> draft [label="[R] Revise"]
}
`;

for (const radio of document.querySelectorAll('input[name="source"]')) {
  radio.addEventListener('change', () => {
    const useFile = $('source-file-radio').checked;
    $('file-source').hidden = !useFile;
    $('dot-source').hidden = useFile;
  });
}

$('start-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const useFile = $('source-file-radio').checked;
  const body = useFile ? { file: $('file-select').value } : { dot: $('dot-input').value };
  if ($('simulate-input').checked) body.simulate = true;
  const model = $('model-input').value.trim();
  if (model !== '') body.model = model;
  $('start-error').hidden = true;
  $('start-button').disabled = true;
  try {
    const run = await apiJson('/pipelines', { method: 'POST', body: JSON.stringify(body) });
    location.hash = `#/runs/${encodeURIComponent(run.id)}`;
  } catch (error) {
    if (error instanceof UnauthorizedError) return;
    $('start-error').textContent = error.message;
    $('start-error').hidden = false;
  } finally {
    $('start-button').disabled = false;
  }
});

// ---------- run page ----------

function describeEvent(event) {
  switch (event.type) {
    case 'pipeline.started':
      return event.resumed ? `resumed at ${event.startNodeId}` : `started at ${event.startNodeId}`;
    case 'pipeline.completed':
      return `${event.completedCount} node executions in ${event.durationMs} ms`;
    case 'pipeline.failed':
      return event.error;
    case 'pipeline.cancelled':
      return event.reason;
    case 'stage.started':
      return `${event.handlerType}${event.attempt > 1 ? `, attempt ${event.attempt}` : ''}`;
    case 'stage.completed':
      return [
        event.status,
        event.preferredLabel && `→ ${event.preferredLabel}`,
        event.failureReason,
        event.notes,
      ]
        .filter(Boolean)
        .join(' · ');
    case 'stage.failed':
      return `${event.error}${event.willRetry ? ' (will retry)' : ''}`;
    case 'stage.retrying':
      return `retrying in ${event.delayMs} ms`;
    case 'interview.started':
      return event.question.text;
    case 'interview.completed':
      return `answered ${event.answer.selectedOption?.label ?? event.answer.value}`;
    case 'interview.timeout':
      return `timed out; using ${event.answer.value}`;
    case 'checkpoint.saved':
      return event.nextNodeId ? `next: ${event.nextNodeId}` : '';
    case 'stage.log':
      return event.message;
    case 'agent.text':
      return event.text.slice(0, 160);
    case 'agent.tool_call.started':
      return event.toolName;
    case 'agent.tool_call.completed':
      return `${event.toolName}${event.isError ? ' (error)' : ''}`;
    case 'parallel.started':
      return `${event.branchCount} branches`;
    case 'parallel.completed':
      return `${event.successCount} ok, ${event.failureCount} failed`;
    default:
      return '';
  }
}

function appendEvent(event) {
  const status =
    event.type === 'stage.completed' ? event.status : event.type.endsWith('.failed') ? 'failed' : '';
  const row = el(
    'tr',
    { class: status, dataset: { seq: event.seq, type: event.type } },
    el('td', {}, event.seq),
    el('td', {}, shortTime(event.timestamp)),
    el('td', { class: 'type' }, event.type),
    el('td', {}, event.nodeId ?? event.stage ?? event.question?.stage ?? ''),
    el('td', {}, describeEvent(event)),
  );
  const log = $('event-log');
  const wrap = log.closest('.event-log-wrap');
  const atBottom = wrap.scrollTop + wrap.clientHeight >= wrap.scrollHeight - 4;
  log.append(row);
  if (atBottom) wrap.scrollTop = wrap.scrollHeight;
}

function renderRunHeader(details) {
  $('run-title').textContent = details.graphName;
  $('run-id').textContent = details.id;
  $('run-started').textContent = formatTime(details.startedAt);
  $('run-goal').textContent = details.goal ? `Goal: ${details.goal}` : '';
  const state = $('run-state');
  state.textContent = details.state;
  state.className = `badge ${details.state}`;
  state.dataset.state = details.state;
  $('cancel-button').hidden = !details.live;
  $('resume-button').hidden = !details.resumable || details.live;
  const error = $('run-error');
  error.hidden = !details.failureReason || details.state === 'success';
  error.textContent = details.failureReason ? `Reason: ${details.failureReason}` : '';
}

function renderStageFiles(details) {
  $('stage-files').replaceChildren(
    ...details.stages.map((stage) =>
      el(
        'li',
        {},
        el('strong', {}, stage.nodeId),
        stage.files.map((file) =>
          el(
            'a',
            {
              href: '#',
              dataset: { node: stage.nodeId, file },
              onclick: (event) => {
                event.preventDefault();
                showStageFile(details.id, stage.nodeId, file);
              },
            },
            file,
          ),
        ),
      ),
    ),
  );
  if (details.stages.length === 0)
    $('stage-files').append(el('li', { class: 'muted' }, 'No stage files yet.'));
}

async function showStageFile(runId, nodeId, file) {
  const response = await api(
    `/pipelines/${encodeURIComponent(runId)}/stages/${encodeURIComponent(nodeId)}/${encodeURIComponent(file)}`,
  );
  $('file-viewer-title').textContent = `${nodeId}/${file}`;
  $('file-viewer-body').textContent = response.ok
    ? await response.text()
    : `Cannot read it (${response.status}).`;
  $('file-viewer').hidden = false;
}
$('file-viewer-close').addEventListener('click', () => {
  $('file-viewer').hidden = true;
});

async function refreshGraph(runId) {
  const response = await api(`/pipelines/${encodeURIComponent(runId)}/graph`);
  if (!response.ok || currentRun?.id !== runId) return;
  const svg = new DOMParser().parseFromString(await response.text(), 'image/svg+xml').documentElement;
  $('graph').replaceChildren(document.importNode(svg, true));
}

async function refreshContext(runId) {
  const body = await apiJson(`/pipelines/${encodeURIComponent(runId)}/context`);
  if (currentRun?.id !== runId) return;
  const entries = Object.entries(body.context).sort(([a], [b]) => a.localeCompare(b));
  $('context-table').replaceChildren(
    ...entries.map(([key, value]) =>
      el(
        'tr',
        {},
        el('td', {}, key),
        el('td', {}, typeof value === 'string' ? value : JSON.stringify(value)),
      ),
    ),
  );
  $('context-note').textContent = body.afterNode ? `As of the checkpoint after ${body.afterNode}.` : '';
}

async function refreshQuestions(runId) {
  const { questions } = await apiJson(`/pipelines/${encodeURIComponent(runId)}/questions`);
  if (currentRun?.id !== runId) return;
  $('question-panel').hidden = questions.length === 0;
  $('questions').replaceChildren(...questions.map((pending) => renderQuestion(runId, pending)));
}

function renderQuestion(runId, pending) {
  const { question } = pending;
  const answer = async (body, controls) => {
    for (const control of controls) control.disabled = true;
    try {
      await apiJson(
        `/pipelines/${encodeURIComponent(runId)}/questions/${encodeURIComponent(pending.id)}/answer`,
        {
          method: 'POST',
          body: JSON.stringify(body),
        },
      );
    } catch (error) {
      alert(error.message);
    }
    refreshQuestions(runId);
  };
  const item = el('div', { class: 'question-item', dataset: { questionId: pending.id } });
  item.append(el('p', { class: 'text' }, question.text));
  const choices = el('div', { class: 'choices' });
  if (question.type === 'multiple_choice') {
    const buttons = question.options.map((option) =>
      el(
        'button',
        {
          type: 'button',
          class: 'button option',
          dataset: { answer: option.key },
          onclick: () => answer({ value: option.key }, buttons),
        },
        el('kbd', {}, option.key),
        ' ',
        option.label.replace(/^\s*(\[\w\]|\w\)|\w\s*-)\s*/, ''),
      ),
    );
    choices.append(...buttons);
  } else if (question.type === 'yes_no' || question.type === 'confirmation') {
    const buttons = ['yes', 'no'].map((value) =>
      el(
        'button',
        {
          type: 'button',
          class: 'button option',
          dataset: { answer: value },
          onclick: () => answer({ value }, buttons),
        },
        value === 'yes' ? 'Yes' : 'No',
      ),
    );
    choices.append(...buttons);
  } else {
    const text = el('textarea', { rows: 3, placeholder: 'Your answer', 'aria-label': 'Answer' });
    const send = el('button', { type: 'button', class: 'button', dataset: { answer: 'text' } }, 'Send');
    send.addEventListener('click', () => {
      if (text.value.trim() !== '') answer({ text: text.value }, [send, text]);
    });
    item.append(text);
    choices.append(send);
  }
  item.append(choices);
  if (question.timeoutMs !== undefined) {
    item.append(
      el(
        'p',
        { class: 'muted' },
        `Times out ${Math.round(question.timeoutMs / 1000)} s after ${shortTime(pending.askedAt)}${question.default ? `, then takes "${question.default.value}"` : ''}.`,
      ),
    );
  }
  return item;
}

async function refreshDetails(runId) {
  const details = await apiJson(`/pipelines/${encodeURIComponent(runId)}`);
  if (currentRun?.id !== runId) return details;
  renderRunHeader(details);
  renderStageFiles(details);
  return details;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Reads the run's SSE stream with fetch (the token goes in a header); reconnects with Last-Event-ID. */
async function followEvents(run, onEvent, onEnd) {
  const { signal } = run.controller;
  while (!signal.aborted) {
    try {
      const response = await api(`/pipelines/${encodeURIComponent(run.id)}/events`, {
        headers: { 'Last-Event-ID': String(run.lastSeq), Accept: 'text/event-stream' },
        signal,
      });
      if (!response.ok) throw new Error(`events: ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replaceAll('\r\n', '\n');
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let type = 'message';
          let id;
          const data = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) type = line.slice(6).trim();
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (type === 'end') {
            onEnd();
            return;
          }
          if (data.length === 0) continue;
          if (id !== undefined) run.lastSeq = Number(id);
          onEvent(JSON.parse(data.join('\n')));
        }
      }
    } catch (error) {
      if (signal.aborted || error instanceof UnauthorizedError) return;
    }
    await sleep(1000, signal);
  }
}

async function showRun(runId) {
  if (currentRun?.id === runId) return;
  currentRun?.controller.abort();
  const run = { id: runId, controller: new AbortController(), lastSeq: 0 };
  currentRun = run;
  $('event-log').replaceChildren();
  $('graph').replaceChildren();
  $('file-viewer').hidden = true;
  $('question-panel').hidden = true;
  $('context-table').replaceChildren();
  try {
    await refreshDetails(runId);
  } catch (error) {
    if (error instanceof UnauthorizedError) return;
    $('run-title').textContent = 'Run not found';
    $('run-error').textContent = error.message;
    $('run-error').hidden = false;
    return;
  }
  const graph = throttle(() => refreshGraph(runId).catch(() => {}), 250);
  const details = throttle(() => refreshDetails(runId).catch(() => {}), 250);
  const context = throttle(() => refreshContext(runId).catch(() => {}), 400);
  const questions = () => refreshQuestions(runId).catch(() => {});
  graph();
  context();
  questions();
  followEvents(
    run,
    (event) => {
      if (currentRun !== run) return;
      appendEvent(event);
      if (
        event.type.startsWith('stage.') ||
        event.type.startsWith('interview.') ||
        event.type.startsWith('pipeline.') ||
        event.type.startsWith('parallel.')
      ) {
        graph();
        details();
      }
      if (event.type.startsWith('interview.')) questions();
      if (event.type === 'checkpoint.saved' || event.type.startsWith('pipeline.')) context();
      if (event.type.startsWith('pipeline.') || event.type.startsWith('interview.')) refreshRunList();
    },
    () => {
      if (currentRun !== run) return;
      graph();
      details();
      context();
      questions();
      refreshRunList();
    },
  );
}

$('cancel-button').addEventListener('click', async () => {
  if (!currentRun) return;
  try {
    await apiJson(`/pipelines/${encodeURIComponent(currentRun.id)}/cancel`, { method: 'POST' });
  } catch (error) {
    alert(error.message);
  }
});

$('resume-button').addEventListener('click', async () => {
  if (!currentRun) return;
  const id = currentRun.id;
  try {
    await apiJson(`/pipelines/${encodeURIComponent(id)}/resume`, { method: 'POST' });
    currentRun.controller.abort();
    currentRun = undefined;
    await showRun(id);
    refreshRunList();
  } catch (error) {
    alert(error.message);
  }
});

// ---------- routing ----------

function showView(name) {
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== `view-${name}`;
}

async function route() {
  if (token === '') {
    await askForToken();
    return;
  }
  const hash = location.hash;
  const match = /^#\/runs\/(.+)$/.exec(hash);
  if (match) {
    showView('run');
    await showRun(decodeURIComponent(match[1]));
  } else {
    currentRun?.controller.abort();
    currentRun = undefined;
    showView('new');
    await showNewRun();
  }
  await refreshRunList();
  clearInterval(listTimer);
  listTimer = setInterval(refreshRunList, 5000);
}

window.addEventListener('hashchange', route);
route();
