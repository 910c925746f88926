// A real, throw-away PostgreSQL server for tests and benchmarks: Debian's `initdb` and `pg_ctl` (package
// `postgresql`) make a cluster in a fresh temporary directory, started on a free TCP port of 127.0.0.1 with its unix
// socket inside that directory, and removed again by `stop()`. PostgreSQL refuses to run as root, so under root the
// server runs as the `postgres` system user that the Debian package creates (else `nobody`), owning the directory.
// On a machine without PostgreSQL the tests that need it skip and say so in one line; under CI=true they fail
// instead, since CI must have it (`.ci/system-deps` installs it).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const INSTALL_HINT = 'apt-get install postgresql';
const told = new Set();
/** Servers started by this process and not stopped yet: stopped when the process exits, so none outlives it. */
const running = new Set();

/**
 * The directory holding `initdb`, `pg_ctl` and `postgres`: `$ATTRACTOR_POSTGRES_BIN`, else the newest
 * `/usr/lib/postgresql/<version>/bin` (Debian), else the directory of `pg_ctl` on PATH; `undefined` when none has them.
 * @returns {string | undefined}
 */
function postgresBinDirectory() {
  const configured = process.env.ATTRACTOR_POSTGRES_BIN;
  if (configured) return existsSync(join(configured, 'initdb')) ? configured : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(debian, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb'))) return dir;
  }
  return undefined;
}

/**
 * The system user the server runs as: the current user, or under root the `postgres` user (else `nobody`), read
 * from /etc/passwd.
 * @returns {{ name: string, uid: number, gid: number } | undefined} undefined when root has no such user
 */
function serverUser() {
  const me = userInfo();
  if (me.uid !== 0) return { name: me.username, uid: me.uid, gid: me.gid };
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const wanted of ['postgres', 'nobody']) {
    for (const line of passwd.split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name === wanted && Number(uid) !== 0) return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  return undefined;
}

/**
 * Why no PostgreSQL server can be started here, or `undefined` when one can (the binaries exist and, under root, a
 * non-root user to run them as). The reason names the package to install.
 * @returns {string | undefined}
 */
export function postgresUnavailableReason() {
  if (process.platform === 'win32') return 'PostgreSQL test servers need Linux or macOS';
  if (postgresBinDirectory() === undefined)
    return `PostgreSQL not found (no /usr/lib/postgresql/<version>/bin/initdb, no pg_ctl on PATH, ATTRACTOR_POSTGRES_BIN unset): ${INSTALL_HINT}`;
  if (serverUser() === undefined)
    return `PostgreSQL refuses to run as root and this machine has no 'postgres' user: ${INSTALL_HINT} (it creates one)`;
  return undefined;
}

/**
 * Whether the tests named `what` can run: true when a PostgreSQL server can be started. Otherwise writes one line
 * to stderr (once per `what`) naming the package to install and returns false, so the caller skips them.
 * @param {string} what the tests that need PostgreSQL, for the skip line
 * @returns {boolean}
 * @throws Error when CI=true: CI must run these tests, never skip them.
 */
export function postgresAvailableForTests(what) {
  const reason = postgresUnavailableReason();
  if (reason === undefined) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${what} cannot run: ${reason}`);
  if (!told.has(what)) {
    told.add(what);
    process.stderr.write(`skipping ${what}: ${reason}\n`);
  }
  return false;
}

/** @returns {Promise<number>} a TCP port of 127.0.0.1 that was free a moment ago */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Runs one PostgreSQL program as `user`, with the temporary directory as working directory (the caller's may be
 * unreadable to that user).
 * @returns {Promise<{ code: number | null, output: string }>}
 */
function runAs(user, file, args, cwd) {
  return new Promise((resolve, reject) => {
    const asOther = user.uid !== process.getuid?.();
    const child = spawn(file, args, {
      cwd,
      ...(asOther ? { uid: user.uid, gid: user.gid } : {}),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', HOME: cwd, USER: user.name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Stops a server at once and removes its directory; synchronous, for the process's `exit` handler too. */
function stopNow(server) {
  if (!running.delete(server)) return;
  const asOther = server.user.uid !== process.getuid?.();
  spawnSync(join(server.bin, 'pg_ctl'), ['-D', server.dataDirectory, '-m', 'immediate', '-w', 'stop'], {
    cwd: server.directory,
    ...(asOther ? { uid: server.user.uid, gid: server.user.gid } : {}),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' },
    stdio: 'ignore',
  });
  rmSync(server.directory, { recursive: true, force: true });
}

let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const server of [...running]) stopNow(server);
  });
}

/**
 * Starts a fresh PostgreSQL server for tests: a new cluster (`initdb`, UTF-8, locale C) in a temporary directory,
 * listening on 127.0.0.1 on a free port, with its unix socket in that directory. The superuser `attractor` has a
 * random password (scram-sha-256 over TCP), so the URL carries a password as real deployments' do. Durability is
 * off by default (`fsync`, `synchronous_commit` and `full_page_writes` off): a test server need not survive a power
 * cut. The server is stopped (immediate shutdown) and its directory removed by `stop()`, or when the process exits.
 * @param {{ durable?: boolean }} [options] `durable: true` keeps PostgreSQL's default durability (for benchmarks)
 * @returns {Promise<{ url: string, host: string, port: number, user: string, password: string, database: string,
 *   socketDirectory: string, stop(): Promise<void>, pause(): Promise<void>, resume(): Promise<void> }>} `url` is
 *   `postgres://attractor:<password>@127.0.0.1:<port>/postgres`; `pause()` stops the server (its clients' connections
 *   drop) and `resume()` starts it again on the same port with the same data, for tests of an outage
 * @throws Error naming the package to install when PostgreSQL is missing, or with the server's log when it does not start.
 */
export async function startPostgresServer(options = {}) {
  const reason = postgresUnavailableReason();
  if (reason !== undefined) throw new Error(reason);
  const bin = /** @type {string} */ (postgresBinDirectory());
  const user = /** @type {{ name: string, uid: number, gid: number }} */ (serverUser());
  const directory = mkdtempSync(join(tmpdir(), 'attractor-pg-'));
  const dataDirectory = join(directory, 'data');
  const password = randomBytes(12).toString('hex');
  const pwfile = join(directory, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chmodSync(directory, 0o700);
  if (user.uid !== process.getuid?.()) {
    chownSync(directory, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  const server = { bin, user, directory, dataDirectory };
  try {
    const init = await runAs(
      user,
      join(bin, 'initdb'),
      [
        '-D',
        dataDirectory,
        '-U',
        'attractor',
        `--pwfile=${pwfile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      directory,
    );
    rmSync(pwfile, { force: true });
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.output}`);
    const durability = options.durable
      ? []
      : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
    let lastOutput = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      const serverOptions = [
        `-p ${port}`,
        `-k ${directory}`,
        '-c listen_addresses=127.0.0.1',
        '-c max_connections=200',
        ...durability,
      ].join(' ');
      running.add(server);
      installExitHook();
      const start = await runAs(
        user,
        join(bin, 'pg_ctl'),
        [
          '-D',
          dataDirectory,
          '-l',
          join(directory, 'server.log'),
          '-o',
          serverOptions,
          '-w',
          '-t',
          '60',
          'start',
        ],
        directory,
      );
      if (start.code === 0) {
        const url = `postgres://attractor:${password}@127.0.0.1:${port}/postgres`;
        const pgCtl = (args) => runAs(user, join(bin, 'pg_ctl'), ['-D', dataDirectory, ...args], directory);
        return {
          url,
          host: '127.0.0.1',
          port,
          user: 'attractor',
          password,
          database: 'postgres',
          socketDirectory: directory,
          async stop() {
            stopNow(server);
          },
          async pause() {
            const stopped = await pgCtl(['-m', 'fast', '-w', 'stop']);
            if (stopped.code !== 0)
              throw new Error(`pg_ctl stop failed (exit ${stopped.code}):\n${stopped.output}`);
          },
          async resume() {
            const started = await pgCtl([
              '-l',
              join(directory, 'server.log'),
              '-o',
              serverOptions,
              '-w',
              '-t',
              '60',
              'start',
            ]);
            if (started.code !== 0)
              throw new Error(`pg_ctl start failed (exit ${started.code}):\n${started.output}`);
          },
        };
      }
      running.delete(server);
      let log = '';
      try {
        log = readFileSync(join(directory, 'server.log'), 'utf8');
      } catch {}
      lastOutput = `${start.output}\n${log}`;
      // Another process took the port between freePort() and the start: try another one.
      if (!/could not bind|Address already in use/i.test(lastOutput)) break;
    }
    throw new Error(`PostgreSQL did not start:\n${lastOutput}`);
  } catch (error) {
    running.delete(server);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
