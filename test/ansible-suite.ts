/**
 * The NetBox Ansible collection's own integration suites, run unmodified against a fresh NetLedger as
 * the collection's CI runs them against a fresh NetBox: first its `netbox-deploy.py` seeds the objects
 * the tasks expect (with pynetbox 7.8), then, when the release has one, its `inventory-*` target
 * compares `nb_inventory`'s output with the JSON files kept in the target, then its `regression-*`
 * target and every task file of the main target run in one playbook that keeps going past a failure.
 * The targets come in name order, as ansible-test runs them: the ids that the main target asserts
 * count the device and the interface templates the regression target adds.
 *
 * One test per task file that the target's main.yml includes: it passes when some of its tasks ran
 * and every task that failed is in the known failures with its reason. One test per inventory case:
 * it passes when the output matches or the case is a known failure with its reason.
 * The task files and inventory configurations name `http://localhost:32768` and a fixed token; they
 * are copied to a temporary folder with the service's URL (and the version's base) and token in their
 * place.
 *
 * A task the suite expects to fail (`ignore_errors: true`, checked by the ASSERT after it) counts as
 * passed; its ASSERT decides.
 *
 * The collection and pynetbox 7.8 are NetBox's reference material beside the repository
 * (`../shared/reference/`, or NETBOX_REFERENCE): their absence is a failure, not a skip.
 * A suite takes several minutes of CPU (a Python process per task), so it runs on SQLite only; the
 * PostgreSQL run checks the same API through the client tests and the conformance suite.
 */
import { suite } from 'uvu';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, startApp } from './helpers.js';
import { referencePath } from './reference.js';

const SUITE_URL = 'http://localhost:32768';
const SUITE_TOKEN = '0123456789abcdef0123456789abcdef01234567';
const PYTHON = process.env.NETLEDGER_PYTHON ?? '/usr/bin/python3';
const TIMEOUT_MS = Number(process.env.ANSIBLE_SUITE_TIMEOUT || 2100) * 1000;

/** Task file → task name → why it fails against NetLedger. */
export type KnownFailures = Record<string, Record<string, string>>;

export interface AnsibleSuite {
  /** The collection's release, a folder under `ansible_modules/` of the reference material (`v3.22.0`). */
  release: string;
  /** The main target (`v4.3`); the regression target is `regression-<target>`, the inventory target `inventory-<target>`. */
  target: string;
  /** The path the collection's URL names under the service (`/v4.6`), or '' for the default version. */
  base: string;
  /** Whether the release's inventory target runs. */
  inventory: boolean;
  /** Fewer tasks than this ran: the suite did not run as a whole. */
  minimumTasks: number;
  /** Tasks that fail against NetLedger; a task named here that passes is fine, a failing task not named here fails its file's test. */
  knownFailures: KnownFailures;
  /** Inventory cases (file names without `.yml`) that fail as a whole, with the reason. */
  knownInventoryFailures?: Record<string, string>;
  /** Differences (as `compareInventories` words them) that any inventory case may show, with the reason. */
  knownInventoryDifferences?: { match: RegExp; reason: string }[];
}

interface TaskResult { file: string; name: string; failed: boolean; message: string }
interface InventoryResult { name: string; differences: string[] }
interface Outcome { results: TaskResult[]; inventories: InventoryResult[]; seconds: number }

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

// ---- the inventory comparison: the inventory target's compare_inventory_json.py, in TypeScript ----

/** Keys the collection's comparison removes at any depth (and as strings in lists): they differ per run or per host. */
const KEYS_REMOVE = new Set(['created', 'last_updated', 'url']);

function removeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(typeof item === 'string' && KEYS_REMOVE.has(item))).map(removeKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([key]) => !KEYS_REMOVE.has(key)).map(([key, item]) => [key, removeKeys(item)]));
  }
  return value;
}

/** A value's canonical text: keys sorted, lists sorted by their items' text (the comparison ignores order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The differences between two JSON values, lists compared as multisets (DeepDiff with ignore_order), each as `path: expected → got`. */
function differences(expected: unknown, got: unknown, path: string, out: string[]): void {
  if (canonical(expected) === canonical(got)) return;
  if (Array.isArray(expected) && Array.isArray(got)) {
    const left = [...expected];
    const right = [...got];
    for (let i = left.length - 1; i >= 0; i--) {
      const j = right.findIndex((item) => canonical(item) === canonical(left[i]));
      if (j >= 0) { left.splice(i, 1); right.splice(j, 1); }
    }
    // Items left on both sides: pair those with the same id (or name) to show what differs inside them.
    const key = (item: unknown) => (item && typeof item === 'object' ? JSON.stringify((item as Record<string, unknown>).id ?? (item as Record<string, unknown>).name) : undefined);
    for (let i = left.length - 1; i >= 0; i--) {
      const k = key(left[i]);
      const j = k === undefined ? -1 : right.findIndex((item) => key(item) === k);
      if (j >= 0) { differences(left[i], right[j], `${path}[${k}]`, out); left.splice(i, 1); right.splice(j, 1); }
    }
    for (const item of left) out.push(`${path}: missing item ${short(item)}`);
    for (const item of right) out.push(`${path}: unexpected item ${short(item)}`);
    return;
  }
  if (expected && got && typeof expected === 'object' && typeof got === 'object' && !Array.isArray(expected) && !Array.isArray(got)) {
    const a = expected as Record<string, unknown>;
    const b = got as Record<string, unknown>;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in b)) out.push(`${path}.${k}: missing (expected ${short(a[k])})`);
      else if (!(k in a)) out.push(`${path}.${k}: unexpected ${short(b[k])}`);
      else differences(a[k], b[k], `${path}.${k}`, out);
    }
    return;
  }
  out.push(`${path}: expected ${short(expected)}, got ${short(got)}`);
}

/** Sorts each host's interfaces and services by id, as the collection's comparison does. */
function sortHostArrays(inventory: Record<string, any>): void {
  for (const host of Object.values<Record<string, any>>(inventory._meta?.hostvars ?? {})) {
    for (const key of ['interfaces', 'services']) {
      if (Array.isArray(host[key])) host[key].sort((x: { id: number }, y: { id: number }) => x.id - y.id);
    }
  }
}

/** The differences between an inventory target's expected JSON and `nb_inventory`'s output, compared as the collection compares them. */
export function compareInventories(expectedText: string, gotText: string): string[] {
  const [expected, got] = [expectedText, gotText].map((text) => removeKeys(JSON.parse(text)) as Record<string, any>);
  sortHostArrays(expected);
  sortHostArrays(got);
  const out: string[] = [];
  differences(expected, got, 'root', out);
  return out;
}

// ---- one run: the app, the seeding, the inventory cases, the playbook ----

function locate(release: string) {
  const collection = referencePath(join('ansible_modules', release));
  const pynetbox = referencePath('pynetbox-7.8.0');
  if (!collection || !pynetbox) return null;
  return { collection, pynetbox, targets: join(collection, 'tests', 'integration', 'targets') };
}

/** Copies `from` to `to` with the suite's URL and cache folder replaced. */
function copyRewritten(from: string, to: string, url: string, work: string): void {
  writeFileSync(to, readFileSync(from, 'utf8').replaceAll(SUITE_URL, url).replaceAll('/tmp/inventory_netbox', join(work, 'inventory-cache')));
}

async function runSuite(options: AnsibleSuite): Promise<Outcome> {
  const found = locate(options.release);
  const regressionFile = `regression-${options.target}`;
  const target = found && join(found.targets, options.target, 'tasks');
  const regression = found && join(found.targets, regressionFile, 'tasks', 'main.yml');
  if (!found || !existsSync(target!) || !existsSync(regression!)) {
    throw new Error(`the collection netbox.netbox ${options.release} is not found: set NETBOX_REFERENCE to the folder holding ansible_modules/ and pynetbox-7.8.0/`);
  }
  const app = await startApp({ ADMIN_TOKEN: SUITE_TOKEN });
  const origin = app.url.replace(/\/$/, '');
  const url = origin + options.base;
  const work = mkdtempSync(join(tmpdir(), 'netledger-ansible-suite-'));
  const started = performance.now();
  try {
    const collections = join(work, 'collections', 'ansible_collections', 'netbox');
    mkdirSync(collections, { recursive: true });
    symlinkSync(found.collection, join(collections, 'netbox'));
    mkdirSync(join(work, 'tasks'));
    for (const file of readdirSync(target!)) copyRewritten(join(target!, file), join(work, 'tasks', file), url, work);
    copyRewritten(regression!, join(work, 'tasks', `${regressionFile}.yml`), url, work);
    writeFileSync(join(work, 'play.yml'), [
      '- hosts: localhost',
      '  connection: local',
      '  gather_facts: false',
      '  ignore_errors: true',
      '  tasks:',
      `    - ansible.builtin.include_tasks: tasks/${regressionFile}.yml`,
      '    - ansible.builtin.include_tasks: tasks/main.yml',
      '',
    ].join('\n'));
    writeFileSync(join(work, 'ansible.cfg'), '# empty: only the environment configures Ansible\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: work,
      PYTHONPATH: found.pynetbox,
      PYTHONDONTWRITEBYTECODE: '1',
      NETBOX_HOST: url,
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
    const deploy = await run(PYTHON, [join(found.collection, 'tests', 'integration', 'netbox-deploy.py')], work, env);
    if (deploy.code !== 0) throw new Error(`netbox-deploy.py failed (${deploy.code}): ${(deploy.stdout + deploy.stderr).slice(-1500)}`);
    const inventories: InventoryResult[] = [];
    if (options.inventory) {
      const files = join(found.targets, `inventory-${options.target}`, 'files');
      mkdirSync(join(work, 'inventory'));
      // as the collection's own ansible.cfg: its inventory plugin only, group names made valid (the
      // expected files were written so); an inventory that cannot be parsed is an error, not an empty one
      const inventoryEnv = { ...env, ANSIBLE_INVENTORY_ENABLED: 'netbox.netbox.nb_inventory', ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS: 'always', ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True' };
      for (const file of readdirSync(files).filter((f) => f.endsWith('.yml')).sort()) {
        const name = file.slice(0, -'.yml'.length);
        const config = join(work, 'inventory', file);
        const output = join(work, 'inventory', `${name}.json`);
        copyRewritten(join(files, file), config, url, work);
        const listed = await run('ansible-inventory', ['--list', '--inventory', config, `--output=${output}`], work, inventoryEnv);
        if (listed.code !== 0 || !existsSync(output)) {
          inventories.push({ name, differences: [`ansible-inventory failed (${listed.code}): ${(listed.stdout + listed.stderr).slice(-1500)}`] });
          continue;
        }
        // The expected files name the collection CI's host; NetLedger's links (display_url) name its own.
        const got = readFileSync(output, 'utf8').replaceAll(origin, SUITE_URL);
        inventories.push({ name, differences: compareInventories(readFileSync(join(files, `${name}.json`), 'utf8'), got) });
      }
    }
    const playbook = await run('ansible-playbook', ['-i', 'localhost,', 'play.yml'], work, env);
    if (!playbook.stdout.includes('"plays"')) throw new Error(`ansible-playbook printed no report (${playbook.code}): ${playbook.stderr.slice(-1500)}`);
    return { results: parseResults(playbook.stdout), inventories, seconds: (performance.now() - started) / 1000 };
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Registers and runs the suite's tests: SQLite only (on PostgreSQL the file runs no test). */
export function ansibleSuite(options: AnsibleSuite): void {
  const found = locate(options.release);
  const mainFile = found && join(found.targets, options.target, 'tasks', 'main.yml');
  const regressionFile = `regression-${options.target}`;
  // The task files the target's main.yml includes (a few files in its folder are not included), in its order.
  const included = mainFile && existsSync(mainFile)
    ? [...readFileSync(mainFile, 'utf8').matchAll(/^\s+(?:file:|ansible\.builtin\.include_tasks:)\s+(\S+)\.yml\s*$/gm)].map((m) => m[1])
    : [];
  const files = [regressionFile, ...new Set(included)];
  const inventoryFolder = found && join(found.targets, `inventory-${options.target}`, 'files');
  const cases = options.inventory && inventoryFolder && existsSync(inventoryFolder)
    ? readdirSync(inventoryFolder).filter((f) => f.endsWith('.yml')).sort().map((f) => f.slice(0, -'.yml'.length))
    : [];
  const test = suite(`ansible collection ${options.release.slice(1)}, target ${options.target} [${engine}]`);

  if (engine === 'sqlite') {
    let once: Promise<Outcome> | null = null;
    const outcome = () => (once ??= runSuite(options));
    test('the collection and pynetbox 7.8 are beside the repository, and the suite runs', async () => {
      const { results, inventories, seconds } = await outcome();
      const failed = results.filter((r) => r.failed).length;
      const matched = inventories.filter((r) => !r.differences.length).length;
      const knownFailure = (name: string) => Boolean(options.knownInventoryFailures?.[name]);
      const known = inventories.filter((r) => r.differences.length && !knownFailure(r.name) && !r.differences.some((d) => !options.knownInventoryDifferences?.some((k) => k.match.test(d)))).length;
      const failing = inventories.filter((r) => r.differences.length && knownFailure(r.name)).length;
      const inventoryNote = options.inventory ? `, ${matched} of ${inventories.length} inventory cases matched exactly (${known} more but for known differences, ${failing} known failures)` : '';
      console.log(`\n  ansible ${options.target} target: ${results.length - failed} of ${results.length} tasks passed${inventoryNote} in ${seconds.toFixed(0)} s`);
      if (results.length < options.minimumTasks) throw new Error(`only ${results.length} tasks ran`);
      if (!results.some((r) => r.file === regressionFile)) throw new Error('no task of the regression target ran');
      if (options.inventory && !cases.length) throw new Error(`the inventory target inventory-${options.target} has no case`);
    });
    for (const name of cases) {
      test(`inventory-${options.target} ${name}: nb_inventory's output matches, or the case is a known failure`, async () => {
        const { inventories } = await outcome();
        const result = inventories.find((r) => r.name === name);
        if (!result) throw new Error('this case did not run');
        if (options.knownInventoryFailures?.[name]) return;
        const unexpected = result.differences.filter((d) => !options.knownInventoryDifferences?.some((k) => k.match.test(d)));
        if (unexpected.length) throw new Error(`${unexpected.length} differences:\n      ${unexpected.slice(0, 40).join('\n      ')}`);
      });
    }
    for (const file of files) {
      test(`${file}: every task passes but the known failures`, async () => {
        const { results } = await outcome();
        if (!results.some((r) => r.file === file)) throw new Error('no task of this file ran');
        const known = options.knownFailures[file] ?? {};
        const unexpected = results.filter((r) => r.file === file && r.failed && !(r.name in known));
        if (unexpected.length) throw new Error(unexpected.map((r) => `[${r.name}] ${r.message}`).join('\n      '));
      });
    }
  }

  test.run();
}
