/**
 * Real clients against NetLedger, on the current engine: pynetbox 7.0.0 (Debian's python3-pynetbox)
 * and Ansible with the netbox.netbox 3.13.0 collection (Debian's ansible). CI installs both.
 *
 * - test/clients/pynetbox/NN_*.py: scenario scripts. Every check prints `ok <name>`, `FAIL <name>: <reason>`
 *   or `pending <name>: <reason>`. The scripts are first listed (NETLEDGER_LIST_CHECKS=1 prints
 *   `check <name>` without touching a server), so each check is declared here as one uvu test; then each
 *   script runs once against the service and every ok/FAIL line settles its test. Pending lines are
 *   printed, not counted.
 * - test/clients/ansible/NN_*.yml: playbooks, each run twice. The first run must succeed with changes, the
 *   second must report changed=0 (idempotence, from the PLAY RECAP); then `verify.py <playbook>` checks
 *   the stored objects through the API (ok/FAIL lines, as above). A playbook whose first line is
 *   `# netledger-pending-unless: <list path> | <reason>` is reported as pending while the service has no
 *   model at that path.
 * - test/clients/ansible/inventory.netbox.yml: the nb_inventory plugin, through `ansible-inventory --list`.
 *
 * Missing python3-pynetbox or ansible is a failure, not a skip. NETLEDGER_PYTHON picks the interpreter;
 * otherwise the first of /usr/bin/python3 and python3 that imports pynetbox is used.
 * No top-level await (as in test/conformance.test.ts): the service starts at load time and every test
 * waits for it; the last suite stops it. Child processes run in a temporary directory with their own
 * HOME and Ansible temp folders, so nothing is read from or written to the user's Ansible setup.
 */
import { suite } from 'uvu';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, engine, startApp, type TestApp } from './helpers.js';
import { checkTests, describeExit, listChecks as listScriptChecks, probe, run as runIn, tail, type Run, type Suite } from './client-checks.js';
import { modelList } from '../runtime/data/registry.js';

const CLIENTS = join(dirname(fileURLToPath(import.meta.url)), 'clients');
const PYNETBOX_DIR = join(CLIENTS, 'pynetbox');
const ANSIBLE_DIR = join(CLIENTS, 'ansible');
const ADMIN_PASSWORD = 'clients-test-admin-password';

const starting = startApp({ ADMIN_PASSWORD });
starting.catch(() => {}); // reported by every test that waits for it
let workDir: string | null = null;
/** Temporary folder for the child processes (cwd, HOME, Ansible temp); made on first use, removed at the end. */
function work(): string {
  return (workDir ??= mkdtempSync(join(tmpdir(), 'netledger-clients-')));
}


// ---------------------------------------------------------------- prerequisites

/** A client command, run in the temporary folder. */
const run = (command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> => runIn(work(), command, args, env);
const listChecks = (script: string, args: string[]) => listScriptChecks(python!, script, args);

function findPython(): { python: string | null; detail: string } {
  const candidates = [process.env.NETLEDGER_PYTHON, '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  const tried: string[] = [];
  for (const candidate of candidates) {
    const p = probe(candidate, ['-c', 'import pynetbox; print(pynetbox.__version__)']);
    if (p.ok) return { python: candidate, detail: `pynetbox ${p.out}` };
    tried.push(`${candidate}: ${p.out.split('\n').pop()}`);
  }
  return { python: null, detail: tried.join('; ') };
}

const { python, detail: pythonDetail } = findPython();
const ansiblePlaybook = probe('ansible-playbook', ['--version']);
const ansibleInventory = probe('ansible-inventory', ['--version']);
const collection = ansiblePlaybook.ok ? probe('ansible-galaxy', ['collection', 'list', 'netbox.netbox']) : { ok: false, out: '' };
const collectionOk = collection.ok && /netbox\.netbox\s+\d/.test(collection.out);
const ansibleOk = !!python && ansiblePlaybook.ok && ansibleInventory.ok && collectionOk;
const INSTALL_HINT = 'CI installs them (.ci/run, step "client packages"); locally: sudo apt-get install -y --no-install-recommends python3-pynetbox python3-tz ansible';

// ---------------------------------------------------------------- environments

let appUrl = '';

function clientEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NETLEDGER_URL: appUrl,
    NETLEDGER_TOKEN: ADMIN_TOKEN,
    NETLEDGER_ADMIN_USERNAME: 'admin',
    NETLEDGER_ADMIN_PASSWORD: ADMIN_PASSWORD,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    ...extra,
  };
}

function ansibleEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = join(work(), 'home');
  mkdirSync(home, { recursive: true });
  const config = join(work(), 'ansible.cfg');
  writeFileSync(config, '# empty: only the environment below configures Ansible\n');
  return clientEnv({
    HOME: home,
    ANSIBLE_CONFIG: config,
    ANSIBLE_LOCAL_TEMP: join(work(), 'ansible-local'),
    ANSIBLE_REMOTE_TEMP: join(work(), 'ansible-remote'),
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_FORCE_COLOR: '0',
    ANSIBLE_HOST_KEY_CHECKING: 'False',
    ANSIBLE_LOCALHOST_WARNING: 'False',
    ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False',
    ANSIBLE_RETRY_FILES_ENABLED: 'False',
    ANSIBLE_DEPRECATION_WARNINGS: 'False',
    ANSIBLE_STDOUT_CALLBACK: 'default',
    ANSIBLE_PYTHON_INTERPRETER: python ?? '/usr/bin/python3',
    ...extra,
  });
}

async function ready(): Promise<TestApp> {
  const app = await starting;
  appUrl = app.url;
  return app;
}

const suites: Suite[] = [];


// ---------------------------------------------------------------- prerequisites suite

{
  const test = suite(`clients [${engine}]: installed clients`);
  test('python3 with pynetbox (python3-pynetbox) is installed', () => {
    if (!python) throw new Error(`no python3 imports pynetbox (${pythonDetail}). ${INSTALL_HINT}`);
  });
  test('ansible-playbook, ansible-inventory and the netbox.netbox collection are installed', () => {
    const missing: string[] = [];
    if (!ansiblePlaybook.ok) missing.push(`ansible-playbook (${ansiblePlaybook.out || 'not found'})`);
    if (!ansibleInventory.ok) missing.push(`ansible-inventory (${ansibleInventory.out || 'not found'})`);
    if (ansiblePlaybook.ok && !collectionOk) missing.push(`the netbox.netbox collection (${tail(collection.out, 300)})`);
    if (missing.length) throw new Error(`missing: ${missing.join('; ')}. ${INSTALL_HINT}`);
  });
  test('the service is up', async () => { await ready(); });
  suites.push(test);
}

// ---------------------------------------------------------------- pynetbox scenarios

const scripts = readdirSync(PYNETBOX_DIR).filter((f) => /^\d+_.*\.py$/.test(f)).sort();
if (python) {
  for (const file of scripts) {
    const script = join(PYNETBOX_DIR, file);
    const label = `pynetbox ${file}`;
    const test = suite(`${label} [${engine}]`);
    const listed = listChecks(script, []);
    if (listed.error) test(`${label}: list its checks`, () => { throw new Error(listed.error!); });
    else checkTests(test, label, listed, async () => { await ready(); return run(python, [script], clientEnv()); });
    suites.push(test);
  }
}

// ---------------------------------------------------------------- Ansible playbooks

interface Recap { ok: number; changed: number; unreachable: number; failed: number }

function recapOf(stdout: string): Recap | null {
  const m = /^localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/m.exec(stdout);
  return m ? { ok: Number(m[1]), changed: Number(m[2]), unreachable: Number(m[3]), failed: Number(m[4]) } : null;
}

/** The tasks of a playbook run, with their output; for messages. */
function tasks(stdout: string): { name: string; body: string }[] {
  const parts = stdout.split(/^TASK \[(.*?)\] \**$/m);
  const out: { name: string; body: string }[] = [];
  for (let i = 1; i < parts.length; i += 2) out.push({ name: parts[i], body: (parts[i + 1] ?? '').split(/^PLAY RECAP/m)[0].trim() });
  return out;
}

/** `fatal:`/`failed:` lines reduced to their msg (and the last line of a module traceback). */
function failures(stdout: string): string {
  const found: string[] = [];
  for (const t of tasks(stdout)) {
    for (const line of t.body.split('\n')) {
      const m = /^(?:fatal|failed): \[[^\]]+\](?:: FAILED!)?(?: \(item=.*?\))? => (\{.*\})\s*$/.exec(line);
      if (!m) continue;
      let msg = line;
      try {
        const j = JSON.parse(m[1]);
        const trace = typeof j.module_stderr === 'string' ? j.module_stderr.trim().split('\n').pop() : '';
        msg = `${String(j.msg ?? '').replace(/\s+/g, ' ')}${trace ? ` | ${trace}` : ''}`;
      } catch { /* keep the line */ }
      found.push(`[${t.name}] ${msg.slice(0, 600)}`);
    }
  }
  return found.join('\n      ');
}

function changedTasks(stdout: string): string {
  return tasks(stdout)
    .filter((t) => /^changed: /m.test(t.body))
    .map((t) => `[${t.name}]\n${t.body.split('\n').filter((l) => !/^ok: /.test(l)).join('\n').slice(0, 1500)}`)
    .join('\n');
}

function describeRun(r: Run, recap: Recap | null): string {
  const problems = failures(r.stdout);
  return `${describeExit(r)}, recap ${recap ? JSON.stringify(recap) : 'missing'}${problems ? `\n      ${problems}` : ''}${!recap || (!problems && r.code) ? `\n      stderr: ${tail(r.stderr)}\n      stdout: ${tail(r.stdout, 800)}` : ''}`;
}

const playbooks = readdirSync(ANSIBLE_DIR).filter((f) => /^\d+_.*\.ya?ml$/.test(f)).sort();
const verifyScript = join(ANSIBLE_DIR, 'verify.py');
if (ansibleOk) {
  for (const file of playbooks) {
    const stem = file.replace(/\.ya?ml$/, '');
    const playbook = join(ANSIBLE_DIR, file);
    const label = `ansible ${file}`;
    const test = suite(`${label} [${engine}]`);
    suites.push(test);

    const directive = /^# netledger-pending-unless: (\S+) \| (.+)$/m.exec(readFileSync(playbook, 'utf8'));
    if (directive && !modelList.some((m) => m.routes.list === directive[1])) {
      // No model serves that path: nothing to count. Say so once the service is up, with what it answers.
      test.before(async () => {
        // uvu swallows errors thrown by hooks, so say what happened in the line itself.
        let answered: string;
        try {
          answered = String((await (await ready()).api('GET', directive[1])).status);
        } catch (error) {
          answered = `error: ${(error as Error).message}`;
        }
        console.log(`\n  pending [${engine}] ${label}: ${directive[2]} (GET ${directive[1]} -> ${answered})`);
      });
      continue;
    }
    if (directive) {
      test(`GET ${directive[1]} answers 200`, async () => {
        const reply = await (await ready()).api('GET', directive[1]);
        if (reply.status !== 200) throw new Error(`GET ${directive[1]} -> ${reply.status}: ${reply.text.slice(0, 300)}`);
      });
    }

    let first: Promise<Run> | null = null;
    let second: Promise<Run> | null = null;
    const firstRun = () => (first ??= ready().then(() => run('ansible-playbook', [playbook], ansibleEnv())));
    const secondRun = () => (second ??= firstRun().then(() => run('ansible-playbook', ['--diff', playbook], ansibleEnv())));

    test('first run succeeds and reports changes', async () => {
      const r = await firstRun();
      const recap = recapOf(r.stdout);
      if (r.code !== 0 || !recap || recap.failed || recap.unreachable) throw new Error(`first run failed: ${describeRun(r, recap)}`);
      if (recap.changed === 0) throw new Error(`first run reported changed=0; every task should create something`);
    });
    test('second run reports changed=0 (idempotent)', async () => {
      const r = await secondRun();
      const recap = recapOf(r.stdout);
      if (r.code !== 0 || !recap || recap.failed || recap.unreachable) throw new Error(`second run failed: ${describeRun(r, recap)}`);
      if (recap.changed !== 0) throw new Error(`second run reported changed=${recap.changed}:\n${changedTasks(r.stdout)}`);
    });
    const listed = listChecks(verifyScript, [stem]);
    if (listed.error) test('verify.py: list its checks', () => { throw new Error(listed.error!); });
    else checkTests(test, `verify.py ${stem}`, listed, async () => { await secondRun(); return run(python!, [verifyScript, stem], clientEnv()); });
  }

  // ---------------------------------------------------------------- nb_inventory
  const test = suite(`ansible nb_inventory [${engine}]`);
  suites.push(test);
  let inventory: Promise<{ run: Run; data: any; error: string | null }> | null = null;
  const listInventory = () => (inventory ??= ready().then(async () => {
    // After the playbooks (their suites run first), so their devices exist.
    const source = readFileSync(join(ANSIBLE_DIR, 'inventory.netbox.yml'), 'utf8')
      .replaceAll('@NETLEDGER_URL@', appUrl)
      .replaceAll('@NETLEDGER_TOKEN@', ADMIN_TOKEN);
    const file = join(work(), 'netledger.netbox.yml');
    writeFileSync(file, source);
    const r = await run('ansible-inventory', ['-i', file, '--list'], ansibleEnv({
      ANSIBLE_INVENTORY_ENABLED: 'netbox.netbox.nb_inventory',
      ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED: 'True',
    }));
    let data: any = null;
    let error: string | null = null;
    try { data = JSON.parse(r.stdout); } catch (e) { error = `stdout is not JSON (${(e as Error).message})`; }
    if (r.code !== 0 || /Failed to parse|Unable to parse/.test(r.stderr)) error = `${describeExit(r)}; ${error ?? ''} stderr: ${tail(r.stderr)}`;
    return { run: r, data, error };
  }));
  const hostvars = async () => {
    const { data, error } = await listInventory();
    if (error) throw new Error(`ansible-inventory --list failed: ${error}`);
    return data;
  };
  test('ansible-inventory --list parses the nb_inventory source', async () => { await hostvars(); });
  test('lists the devices the playbooks created', async () => {
    const data = await hostvars();
    const hosts = Object.keys(data?._meta?.hostvars ?? {});
    const missing = ['ans-leaf1', 'ans-leaf2', 'ans-spare'].filter((h) => !hosts.includes(h));
    if (missing.length) throw new Error(`missing hosts ${missing.join(', ')}; listed: ${hosts.slice(0, 20).join(', ') || '(none)'}`);
  });
  test('groups hosts by site, role, tag and status', async () => {
    const data = await hostvars();
    const expect: Record<string, string[]> = {
      'sites_ans-site-a': ['ans-leaf1', 'ans-leaf2'],
      'sites_ans-site-b': ['ans-spare'],
      'device_roles_ans-leaf': ['ans-leaf1', 'ans-leaf2', 'ans-spare'],
      'tags_ans-core': ['ans-leaf1', 'ans-leaf2'],
      status_planned: ['ans-spare'],
    };
    const wrong = Object.entries(expect).filter(([group, hosts]) => hosts.some((h) => !(data[group]?.hosts ?? []).includes(h)));
    if (wrong.length) throw new Error(wrong.map(([g, h]) => `group ${g}: expected ${h.join(', ')}, got ${JSON.stringify(data[g]?.hosts ?? null)}`).join('; '));
  });
  test('host variables carry interfaces and their IP addresses', async () => {
    const vars = (await hostvars())._meta.hostvars['ans-leaf1'] ?? {};
    const eth1 = (vars.interfaces ?? []).find((i: any) => i.name === 'Ethernet1');
    if (!eth1) throw new Error(`ans-leaf1 has no interface Ethernet1 in its hostvars (keys: ${Object.keys(vars).join(', ')})`);
    const addresses = (eth1.ip_addresses ?? []).map((ip: any) => ip.address);
    if (!addresses.includes('10.80.0.10/24')) throw new Error(`Ethernet1 ip_addresses: ${JSON.stringify(addresses)}`);
    if (vars.device_roles?.[0] !== 'ans-leaf' || vars.sites?.[0] !== 'ans-site-a') throw new Error(`device_roles/sites: ${JSON.stringify([vars.device_roles, vars.sites])}`);
  });
}

// ---------------------------------------------------------------- run

suites[suites.length - 1].after(async () => {
  try {
    const app = await starting.catch(() => null);
    await app?.stop();
  } finally {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }
});
for (const s of suites) s.run();
