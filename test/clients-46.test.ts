/**
 * pynetbox 7.8.0, the release tested against NetBox 4.6, against NetLedger's 4.6 API
 * (`pynetbox.api("http://host/v4.6", ...)`), on the current engine. pynetbox 7.8.0 is pure Python: it
 * runs from its source folder on PYTHONPATH (NETLEDGER_PYNETBOX_78, else the reference material's
 * `pynetbox-7.8.0`, test/reference.ts) with Debian's python3, python3-requests and python3-packaging
 * (.ci/run installs them). Scenarios are test/clients/pynetbox46/NN_*.py, each check an uvu test
 * (test/client-checks.ts). Missing pynetbox 7.8.0 or its packages is a failure, not a skip.
 */
import { suite } from 'uvu';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, engine, startApp } from './helpers.js';
import { checkTests, listChecks, probe, run, type Suite } from './client-checks.js';
import { referencePath } from './reference.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCENARIOS = join(HERE, 'clients', 'pynetbox46');
const ADMIN_PASSWORD = 'clients-46-admin-password';

/** pynetbox 7.8.0's source folder: NETLEDGER_PYNETBOX_78, else the reference material's. */
function pynetboxSource(): string | null {
  const folder = process.env.NETLEDGER_PYNETBOX_78 ?? referencePath('pynetbox-7.8.0');
  return folder && existsSync(join(folder, 'pynetbox', '__init__.py')) ? folder : null;
}

const source = pynetboxSource();
const python = process.env.NETLEDGER_PYTHON ?? '/usr/bin/python3';
const pythonEnv = { PYTHONPATH: source ?? '', PYTHONDONTWRITEBYTECODE: '1' };
const imports = source ? probe('env', [`PYTHONPATH=${source}`, python, '-c', 'import pynetbox, packaging, requests; print(pynetbox.__version__)']) : { ok: false, out: '' };

const starting = startApp({ ADMIN_PASSWORD });
starting.catch(() => {}); // reported by every test that waits for it
const work = mkdtempSync(join(tmpdir(), 'netledger-clients-46-'));
const suites: Suite[] = [];

{
  const test = suite(`clients-46 [${engine}]: pynetbox 7.8.0`);
  test('pynetbox 7.8.0 is found and imports with requests and packaging', () => {
    if (!source) throw new Error('pynetbox 7.8.0 not found: set NETLEDGER_PYNETBOX_78 to its source folder (the one holding pynetbox/)');
    if (!imports.ok) throw new Error(`${python} cannot import pynetbox 7.8.0 from ${source}: ${imports.out}. CI installs python3-requests and python3-packaging (.ci/run)`);
    if (imports.out.trim() !== '7.8.0') throw new Error(`found pynetbox ${imports.out.trim()} at ${source}, not 7.8.0`);
  });
  test('the service is up', async () => { await starting; });
  suites.push(test);
}

if (source && imports.ok) {
  for (const file of readdirSync(SCENARIOS).filter((f) => /^\d+_.*\.py$/.test(f)).sort()) {
    const script = join(SCENARIOS, file);
    const label = `pynetbox 7.8.0 ${file}`;
    const test = suite(`${label} [${engine}]`);
    const listed = listChecks(python, script, [], pythonEnv);
    if (listed.error) test(`${label}: list its checks`, () => { throw new Error(listed.error!); });
    else {
      checkTests(test, label, listed, async () => {
        const app = await starting;
        return run(work, python, [script], {
          ...process.env,
          ...pythonEnv,
          NETLEDGER_URL: app.url,
          NETLEDGER_TOKEN: ADMIN_TOKEN,
          NETLEDGER_ADMIN_USERNAME: 'admin',
          NETLEDGER_ADMIN_PASSWORD: ADMIN_PASSWORD,
          PYTHONUNBUFFERED: '1',
        });
      });
    }
    suites.push(test);
  }
}

suites[suites.length - 1].after(async () => {
  try {
    await (await starting.catch(() => null))?.stop();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
for (const s of suites) s.run();
