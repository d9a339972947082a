/**
 * The NetBox Ansible collection's own integration suite for NetBox 3.7 (netbox.netbox 3.20.0,
 * `tests/integration/targets/v3.7`), run unmodified against a fresh NetLedger, as its CI runs it
 * against a fresh NetBox: first its `netbox-deploy.py` seeds the objects the tasks expect (with
 * pynetbox 7.8), then its `regression-v3.7` target and every task file of `v3.7` run in one playbook
 * that keeps going past a failure. The regression target comes first as in the collection's CI
 * (ansible-test runs targets in name order): the ids that `v3.7` asserts count the device and the
 * interface templates it adds.
 *
 * One test per task file that the target's main.yml includes: it passes when some of its tasks ran
 * and every task that failed is in KNOWN_FAILURES with its reason.
 * The task files name `http://localhost:32768` and a fixed token; they are copied to a temporary
 * folder with the service's own URL and token in their place.
 *
 * A task the suite expects to fail (`ignore_errors: true`, checked by the ASSERT after it) counts as
 * passed; its ASSERT decides.
 *
 * The collection and pynetbox 7.8 are NetBox's reference material beside the repository
 * (`../shared/reference/`, or NETBOX_REFERENCE): their absence is a failure, not a skip.
 * The suite takes several minutes of CPU (a Python process per task), so it runs on SQLite only;
 * the PostgreSQL run checks the same API through test/clients.test.ts and the conformance suite.
 */
import { suite } from 'uvu';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engine, startApp } from './helpers.js';

// @test-timeout 2400

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = [process.env.NETBOX_REFERENCE, join(ROOT, '..', 'shared', 'reference'), '/work/shared/reference']
  .filter((p): p is string => !!p)
  .find((p) => existsSync(join(p, 'ansible_modules', 'v3.20.0')));
const COLLECTION = REFERENCE && join(REFERENCE, 'ansible_modules', 'v3.20.0');
const PYNETBOX = REFERENCE && join(REFERENCE, 'pynetbox-7.8.0');
const TARGET = COLLECTION && join(COLLECTION, 'tests', 'integration', 'targets', 'v3.7', 'tasks');
const REGRESSION = COLLECTION && join(COLLECTION, 'tests', 'integration', 'targets', 'regression-v3.7', 'tasks', 'main.yml');
const SUITE_URL = 'http://localhost:32768';
const REGRESSION_FILE = 'regression-v3.7';
const SUITE_TOKEN = '0123456789abcdef0123456789abcdef01234567';
const PYTHON = process.env.NETLEDGER_PYTHON ?? '/usr/bin/python3';
const TIMEOUT_MS = Number(process.env.ANSIBLE_SUITE_TIMEOUT || 1500) * 1000;

/**
 * Tasks that fail against NetLedger, by task file and task name, with the reason. A task named here
 * that passes is fine; a failing task not named here fails its file's test.
 */
const KNOWN_FAILURES: Record<string, Record<string, string>> = {};

interface TaskResult { file: string; name: string; failed: boolean; message: string }

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, TIMEOUT_MS);
    child.on('error', (err) => { stderr += err.message; });
    child.on('close', (code) => { clearTimeout(timer); done({ code, stdout, stderr }); });
  });
}

/** Whether the task starting at `file:line` declares `ignore_errors: true` (the suite expects it to fail). */
function expectsFailure(location: string): boolean {
  const m = /^(.*):(\d+)$/.exec(location);
  if (!m || !existsSync(m[1])) return false;
  const lines = readFileSync(m[1], 'utf8').split('\n');
  for (let i = Number(m[2]); i < lines.length && !/^- /.test(lines[i]); i++) {
    if (/^\s+ignore_errors:\s*(true|yes)\s*$/i.test(lines[i])) return true;
  }
  return false;
}

/** The task results of an `ANSIBLE_STDOUT_CALLBACK=json` run, by the task file they come from. */
function parseResults(stdout: string): TaskResult[] {
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const results: TaskResult[] = [];
  for (const play of report.plays ?? []) {
    for (const entry of play.tasks ?? []) {
      const path: string = entry.task?.path ?? '';
      const file = /([^/]+)\.yml:\d+$/.exec(path)?.[1] ?? '';
      if (!file || file === 'main' || file === 'play') continue;
      const host = entry.hosts?.localhost ?? {};
      const message = String(host.msg ?? '').replace(/\s+/g, ' ').slice(0, 300);
      results.push({ file, name: entry.task.name, failed: !!host.failed && !expectsFailure(path), message });
    }
  }
  return results;
}

async function runSuite(): Promise<{ results: TaskResult[]; seconds: number }> {
  if (!COLLECTION || !existsSync(TARGET!) || !existsSync(REGRESSION!)) throw new Error('the collection netbox.netbox 3.20.0 is not found: set NETBOX_REFERENCE to the folder holding ansible_modules/ and pynetbox-7.8.0/');
  const app = await startApp({ ADMIN_TOKEN: SUITE_TOKEN });
  const work = mkdtempSync(join(tmpdir(), 'netledger-ansible-suite-'));
  const started = performance.now();
  try {
    const collections = join(work, 'collections', 'ansible_collections', 'netbox');
    mkdirSync(collections, { recursive: true });
    symlinkSync(COLLECTION, join(collections, 'netbox'));
    cpSync(TARGET!, join(work, 'tasks'), { recursive: true });
    cpSync(REGRESSION!, join(work, 'tasks', `${REGRESSION_FILE}.yml`));
    for (const file of readdirSync(join(work, 'tasks'))) {
      const path = join(work, 'tasks', file);
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll(SUITE_URL, app.url.replace(/\/$/, '')));
    }
    writeFileSync(join(work, 'play.yml'), [
      '- hosts: localhost',
      '  connection: local',
      '  gather_facts: false',
      '  ignore_errors: true',
      '  tasks:',
      `    - ansible.builtin.include_tasks: tasks/${REGRESSION_FILE}.yml`,
      '    - ansible.builtin.include_tasks: tasks/main.yml',
      '',
    ].join('\n'));
    writeFileSync(join(work, 'ansible.cfg'), '# empty: only the environment configures Ansible\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: work,
      PYTHONPATH: PYNETBOX,
      PYTHONDONTWRITEBYTECODE: '1',
      NETBOX_HOST: app.url.replace(/\/$/, ''),
      NETBOX_TOKEN: SUITE_TOKEN,
      ANSIBLE_CONFIG: join(work, 'ansible.cfg'),
      ANSIBLE_COLLECTIONS_PATH: join(work, 'collections'),
      ANSIBLE_LOCAL_TEMP: join(work, 'ansible-local'),
      ANSIBLE_REMOTE_TEMP: join(work, 'ansible-remote'),
      ANSIBLE_STDOUT_CALLBACK: 'json',
      ANSIBLE_PYTHON_INTERPRETER: PYTHON,
      ANSIBLE_LOCALHOST_WARNING: 'False',
      ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False',
      ANSIBLE_DEPRECATION_WARNINGS: 'False',
      ANSIBLE_NOCOLOR: '1',
    };
    const deploy = await run(PYTHON, [join(COLLECTION, 'tests', 'integration', 'netbox-deploy.py')], work, env);
    if (deploy.code !== 0) throw new Error(`netbox-deploy.py failed (${deploy.code}): ${(deploy.stdout + deploy.stderr).slice(-1500)}`);
    const playbook = await run('ansible-playbook', ['-i', 'localhost,', 'play.yml'], work, env);
    if (!playbook.stdout.includes('"plays"')) throw new Error(`ansible-playbook printed no report (${playbook.code}): ${playbook.stderr.slice(-1500)}`);
    return { results: parseResults(playbook.stdout), seconds: (performance.now() - started) / 1000 };
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The task files the target's main.yml includes (a few files in its folder are not included), in its order. */
const included = TARGET && existsSync(join(TARGET, 'main.yml')) ? [...readFileSync(join(TARGET, 'main.yml'), 'utf8').matchAll(/^\s+(?:file:|ansible\.builtin\.include_tasks:)\s+(\S+)\.yml\s*$/gm)].map((m) => m[1]) : [];
const files = [REGRESSION_FILE, ...new Set(included)];
const test = suite(`ansible collection 3.20.0, target v3.7 [${engine}]`);

if (engine === 'sqlite') {
  let once: ReturnType<typeof runSuite> | null = null;
  const outcome = () => (once ??= runSuite());
  test('the collection and pynetbox 7.8 are beside the repository, and the suite runs', async () => {
    const { results, seconds } = await outcome();
    const failed = results.filter((r) => r.failed).length;
    console.log(`\n  ansible v3.7 target: ${results.length - failed} of ${results.length} tasks passed in ${seconds.toFixed(0)} s`);
    if (results.length < 800) throw new Error(`only ${results.length} tasks ran`);
    if (!results.some((r) => r.file === REGRESSION_FILE)) throw new Error('no task of the regression target ran');
  });
  for (const file of files) {
    test(`${file}: every task passes but the known failures`, async () => {
      const { results } = await outcome();
      if (!results.some((r) => r.file === file)) throw new Error('no task of this file ran');
      const known = KNOWN_FAILURES[file] ?? {};
      const unexpected = results.filter((r) => r.file === file && r.failed && !(r.name in known));
      if (unexpected.length) throw new Error(unexpected.map((r) => `[${r.name}] ${r.message}`).join('\n      '));
    });
  }
}

test.run();
