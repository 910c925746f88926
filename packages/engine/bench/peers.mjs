#!/usr/bin/env node
// Side-by-side benchmark against other implementations (issue 35): this engine, jhugman/attractor-pi-dev and
// LangGraph.js, on the same machine in one run. Fetches nothing: it is given the paths of builds made beforehand
// (see "Against other implementations" in the package README for the commands).
// Usage: node bench/peers.mjs [--pi-dev <its built packages/attractor-core>] [--langgraph <dir whose node_modules has
//        @langchain/langgraph>] [--rounds N] [--timeout <seconds a run may take, 120>] [scenario ...]
// Scenarios: chain-1000, chain-10000, loop-10000 (no-op handlers, a checkpoint after every stage) and parse-10000
// (parse of a 10,000-node chain DOT file into an AST; LangGraph has no DOT parser). Every scenario of every
// implementation runs in a child process of its own (peak RSS per scenario); the rounds are interleaved, the
// implementations taking turns in an order that rotates every round, so that all of them see the same machine.
// Ours is `bench/run-bench.mjs <scenario>` (engine + file run store); pi-dev is its PipelineRunner checkpointing to a
// logs directory; LangGraph is a StateGraph of no-op nodes compiled with MemorySaver, which keeps checkpoints in memory.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const self = fileURLToPath(import.meta.url);
const engineDirectory = join(dirname(self), '..');
const RUN_SCENARIOS = {
  'chain-1000': { kind: 'chain', nodes: 1_000 },
  'chain-10000': { kind: 'chain', nodes: 10_000 },
  'loop-10000': { kind: 'loop', iterations: 10_000 },
};
const PARSE_NODES = 10_000;
const PARSE_WARM_RUNS = 3;

/** The figures every child process reports: its peak RSS and the 1-minute load average when it ended. */
function footprint() {
  return {
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    load1: Math.round(loadavg()[0] * 100) / 100,
  };
}

/** A DOT chain of `count` stages between start and exit, for pi-dev's runner (box nodes resolve to its codergen). */
function chainDot(count) {
  const lines = ['digraph chain {', '  start [shape=Mdiamond]', '  exit [shape=Msquare]'];
  for (let index = 1; index <= count; index++) lines.push(`  n${index} [shape=box]`);
  lines.push('  start -> n1');
  for (let index = 1; index < count; index++) lines.push(`  n${index} -> n${index + 1}`);
  lines.push(`  n${count} -> exit`, '}', '');
  return lines.join('\n');
}

/** One stage looping on itself until its handler says `done`, as run-bench.mjs's loop scenario. */
function loopDot() {
  return [
    'digraph loop {',
    '  start [shape=Mdiamond]',
    '  exit [shape=Msquare]',
    '  work [shape=box]',
    '  start -> work',
    '  work -> work [condition="outcome=success"]',
    '  work -> exit [condition="outcome=done"]',
    '}',
    '',
  ].join('\n');
}

/** The file of the parse scenario: the shape of @attractor/dot's parse benchmark (label, prompt, retries, conditions). */
function parseDotSource(count) {
  const lines = [
    'digraph Generated {',
    '  graph [goal="Benchmark pipeline", default_max_retries=1]',
    '  rankdir=LR',
    '  start [shape=Mdiamond, label="Start"]',
    '  exit  [shape=Msquare, label="Exit"]',
  ];
  for (let index = 0; index < count; index++) {
    lines.push(
      `  stage_${index} [label="Stage ${index}", prompt="Implement step ${index} for $goal.", max_retries=2]`,
    );
  }
  lines.push('  start -> stage_0');
  for (let index = 0; index + 1 < count; index++) {
    lines.push(`  stage_${index} -> stage_${index + 1} [condition="outcome=success"]`);
  }
  lines.push(`  stage_${count - 1} -> exit [condition="outcome=success"]`, '}', '');
  return lines.join('\n');
}

/** Times a parse function on a file: one cold parse, then the median of a few warm ones. */
function timeParse(parse, file) {
  const source = readFileSync(file, 'utf8');
  let started = performance.now();
  parse(source);
  const coldMs = performance.now() - started;
  const warm = [];
  for (let run = 0; run < PARSE_WARM_RUNS; run++) {
    started = performance.now();
    parse(source);
    warm.push(performance.now() - started);
  }
  warm.sort((a, b) => a - b);
  const warmMs = warm[Math.floor(warm.length / 2)];
  return { coldMs: Math.round(coldMs), ms: Math.round(warmMs * 10) / 10, ...footprint() };
}

/** pi-dev: its PipelineRunner with a no-op codergen handler, checkpointing to a logs directory under `baseDir`. */
async function runPiDev(coreDirectory, name, baseDir) {
  const core = await import(pathToFileURL(join(coreDirectory, 'dist', 'index.js')).href);
  const scenario = RUN_SCENARIOS[name];
  const graph = core.parseAndBuild(scenario.kind === 'chain' ? chainDot(scenario.nodes) : loopDot());
  const logsRoot = join(mkdtempSync(join(baseDir, 'run-')), 'run');
  const runner = new core.PipelineRunner({ logsRoot });
  let count = 0;
  runner.registerHandler('codergen', {
    execute: async () => {
      count += 1;
      return { status: scenario.kind === 'loop' && count >= scenario.iterations ? 'done' : 'success' };
    },
  });
  const started = performance.now();
  const result = await runner.run(graph);
  const totalMs = performance.now() - started;
  // A loop ends on its stage's `done` outcome (pi-dev's result is the last stage's outcome, the exit runs no handler).
  if (result.outcome.status !== (scenario.kind === 'loop' ? 'done' : 'success')) {
    throw new Error(`pi-dev ${name}: ${result.outcome.status}: ${result.outcome.failureReason}`);
  }
  const executions = result.completedNodes.length;
  return {
    executions,
    totalMs: Math.round(totalMs),
    usPerNode: (totalMs * 1000) / executions,
    ...footprint(),
  };
}

/** LangGraph.js: a StateGraph of no-op nodes (each returns an empty update) with MemorySaver, one checkpoint a step. */
async function runLangGraph(directory, name) {
  const require = createRequire(join(resolve(directory), 'package.json'));
  const { Annotation, END, MemorySaver, START, StateGraph } = require('@langchain/langgraph');
  const scenario = RUN_SCENARIOS[name];
  const State = Annotation.Root({ note: Annotation() });
  const builder = new StateGraph(State);
  let count = 0;
  const noOp = async () => {
    count += 1;
    return {};
  };
  let steps;
  if (scenario.kind === 'chain') {
    for (let index = 1; index <= scenario.nodes; index++) builder.addNode(`n${index}`, noOp);
    builder.addEdge(START, 'n1');
    for (let index = 1; index < scenario.nodes; index++) builder.addEdge(`n${index}`, `n${index + 1}`);
    builder.addEdge(`n${scenario.nodes}`, END);
    steps = scenario.nodes;
  } else {
    builder.addNode('work', noOp);
    builder.addEdge(START, 'work');
    builder.addConditionalEdges('work', () => (count >= scenario.iterations ? END : 'work'), ['work', END]);
    steps = scenario.iterations;
  }
  const graph = builder.compile({ checkpointer: new MemorySaver() });
  const started = performance.now();
  // durability "sync": each step's checkpoint is saved before the next step starts, as the other two do.
  await graph.invoke(
    {},
    { configurable: { thread_id: 'bench' }, recursionLimit: steps + 10, durability: 'sync' },
  );
  const totalMs = performance.now() - started;
  if (count !== steps) throw new Error(`LangGraph ${name}: ${count} node executions, expected ${steps}`);
  return {
    executions: count,
    totalMs: Math.round(totalMs),
    usPerNode: (totalMs * 1000) / count,
    ...footprint(),
  };
}

/** Runs one measurement in this process (a child of the table run) and prints it as a JSON line. */
async function child([implementation, name, location, baseDir]) {
  let result;
  if (name === 'parse-10000') {
    const parse =
      implementation === 'ours'
        ? (await import(pathToFileURL(join(engineDirectory, '..', 'dot', 'dist', 'index.js')).href)).parseDot
        : (await import(pathToFileURL(join(location, 'dist', 'index.js')).href)).parseDot;
    result = timeParse(parse, baseDir);
  } else if (implementation === 'pi-dev') {
    result = await runPiDev(location, name, baseDir);
  } else {
    result = await runLangGraph(location, name);
  }
  console.log(JSON.stringify(result));
}

if (process.argv[2] === '--child') {
  await child(process.argv.slice(3));
  process.exit(0);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'pi-dev': { type: 'string' },
    langgraph: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '120' },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds must be a whole number of at least 1, not "${values.rounds}"`);
  process.exit(2);
}
// Relative paths are taken from where the command was typed (`pnpm bench:peers` runs this from the repository root).
const invokedFrom = process.env.INIT_CWD ?? process.cwd();
const timeoutSeconds = Number(values.timeout);
if (!(timeoutSeconds > 0)) {
  console.error(`--timeout must be a number of seconds above 0, not "${values.timeout}"`);
  process.exit(2);
}
const allScenarios = [...Object.keys(RUN_SCENARIOS), 'parse-10000'];
const scenarios = positionals.length > 0 ? positionals : allScenarios;
for (const scenario of scenarios) {
  if (!allScenarios.includes(scenario)) {
    console.error(`Unknown scenario "${scenario}"; the scenarios are ${allScenarios.join(', ')}`);
    process.exit(2);
  }
}
for (const [label, entry] of [
  ['@attractor/engine', join(engineDirectory, 'dist', 'index.js')],
  ['@attractor/dot', join(engineDirectory, '..', 'dot', 'dist', 'index.js')],
]) {
  if (!existsSync(entry)) {
    console.error(`${label} is not built (${entry} is missing): run pnpm build first`);
    process.exit(2);
  }
}

const implementations = [{ label: 'ours' }];
const missing = [];
if (values['pi-dev'] === undefined) {
  missing.push('pi-dev left out: pass --pi-dev <path to its built packages/attractor-core>');
} else {
  const location = resolve(invokedFrom, values['pi-dev']);
  if (!existsSync(join(location, 'dist', 'index.js'))) {
    console.error(`--pi-dev ${location}: no dist/index.js there; build its @attractor/core package first`);
    process.exit(2);
  }
  implementations.push({ label: 'pi-dev', location });
}
if (values.langgraph === undefined) {
  missing.push('LangGraph left out: pass --langgraph <dir whose node_modules has @langchain/langgraph>');
} else {
  const location = resolve(invokedFrom, values.langgraph);
  if (!existsSync(join(location, 'node_modules', '@langchain', 'langgraph', 'package.json'))) {
    console.error(`--langgraph ${location}: no node_modules/@langchain/langgraph there`);
    process.exit(2);
  }
  implementations.push({ label: 'langgraph', location });
}
/** Which implementations can run a scenario: LangGraph has no DOT parser. */
const runs = (implementation, scenario) =>
  !(scenario === 'parse-10000' && implementation.label === 'langgraph');
const version = (implementation) => {
  if (implementation.label === 'ours') return readJson(join(engineDirectory, 'package.json')).version;
  if (implementation.label === 'pi-dev')
    return readJson(join(implementation.location, 'package.json')).version;
  return readJson(join(implementation.location, 'node_modules', '@langchain', 'langgraph', 'package.json'))
    .version;
};
function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// Run directories go where run-bench.mjs puts them (not /tmp, see there) and are removed at the very end.
const root = process.env.ATTRACTOR_BENCH_DIR ?? join(engineDirectory, '.attractor', 'bench');
mkdirSync(root, { recursive: true });
const keep = mkdtempSync(join(root, 'peers-'));
const parseFile = join(keep, `chain-${PARSE_NODES}.dot`);
writeFileSync(parseFile, parseDotSource(PARSE_NODES));
const results = new Map();
/** Implementation and scenario pairs that timed out or failed, with why: left out of the rounds after. */
const stopped = new Map();
const loads = [loadavg()];
try {
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const order = implementations.filter(
        (implementation) =>
          runs(implementation, scenario) && !stopped.has(`${scenario}\t${implementation.label}`),
      );
      const shift = round % order.length;
      for (const implementation of [...order.slice(shift), ...order.slice(0, shift)]) {
        const directory = join(keep, implementation.label);
        mkdirSync(directory, { recursive: true });
        let argv;
        if (scenario === 'parse-10000') {
          argv = [self, '--child', implementation.label, scenario, implementation.location ?? '', parseFile];
        } else if (implementation.label === 'ours') {
          argv = [join(engineDirectory, 'bench', 'run-bench.mjs'), scenario, directory];
        } else {
          argv = [self, '--child', implementation.label, scenario, implementation.location, directory];
        }
        const key = `${scenario}\t${implementation.label}`;
        let measured;
        try {
          const line = execFileSync(process.execPath, argv, {
            cwd: engineDirectory,
            encoding: 'utf8',
            maxBuffer: 1 << 20,
            timeout: timeoutSeconds * 1000,
            killSignal: 'SIGKILL',
          });
          measured = { round, ...JSON.parse(line) };
        } catch (error) {
          // A run that takes longer than the timeout, or fails (out of memory), is not run again in later rounds.
          const reason =
            error.signal === 'SIGKILL'
              ? `over ${timeoutSeconds} s`
              : `failed: ${String(error.stderr).trim()}`;
          stopped.set(key, reason);
          console.error(`\n${scenario} ${implementation.label} round ${round + 1}: ${reason}`);
          continue;
        }
        results.set(key, [...(results.get(key) ?? []), measured]);
        process.stderr.write('.');
      }
    }
    loads.push(loadavg());
  }
} finally {
  process.stderr.write('\n');
  rmSync(keep, { recursive: true, force: true });
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const figure = (scenario, run) => (scenario === 'parse-10000' ? run.ms : run.usPerNode);
const rows = [];
for (const scenario of scenarios) {
  const ours = results.get(`${scenario}\tours`) ?? [];
  for (const implementation of implementations.filter((candidate) => runs(candidate, scenario))) {
    const key = `${scenario}\t${implementation.label}`;
    const measured = results.get(key) ?? [];
    const name = `${implementation.label} ${version(implementation)}`;
    if (measured.length === 0) {
      rows.push({ scenario, implementation: name, 'µs/stage (parse: ms)': stopped.get(key) });
      continue;
    }
    const ratios = measured.flatMap((run) => {
      const paired = ours.find((candidate) => candidate.round === run.round);
      return paired === undefined ? [] : [figure(scenario, run) / figure(scenario, paired)];
    });
    const value = median(measured.map((run) => figure(scenario, run)));
    rows.push({
      scenario,
      implementation: name,
      'µs/stage (parse: ms)': value < 100 ? Math.round(value * 10) / 10 : Math.round(value),
      'ratio to ours': ratios.length === 0 ? undefined : Math.round(median(ratios) * 100) / 100,
      'peak RSS MB': median(measured.map((run) => run.peakRssMb)),
      load: median(measured.map((run) => run.load1)),
      rounds:
        measured.map((run) => Math.round(figure(scenario, run))).join(' ') +
        (stopped.has(key) ? ` then ${stopped.get(key)}` : ''),
    });
  }
}
console.table(rows);
console.log(
  'µs/stage: wall time of the run over the stages executed, median of the rounds; ratio: median of the per-round ' +
    'ratios to ours; parse: warm parse of a 10,000-node chain DOT file into an AST.',
);
if (implementations.some((implementation) => implementation.label === 'langgraph')) {
  console.log('LangGraph checkpoints to MemorySaver (in memory, no file I/O); ours and pi-dev write files.');
}
for (const line of missing) console.log(line);
console.log(
  `load average (1, 5, 15 min) at the start and after each round: ${loads
    .map((load) => load.map((value) => value.toFixed(2)).join(' '))
    .join(' | ')} on ${availableParallelism()} cores`,
);
