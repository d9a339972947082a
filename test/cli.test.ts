/**
 * The account commands of the command line, run as child processes (`node --import tsx
 * runtime/cli.ts …`, as `npm run cli --` does) against the database of a running test service:
 * createsuperuser, create-token and changepassword, their refusals and exit codes, and a fresh
 * database where createsuperuser applies the migrations before the first start.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../runtime/core/config.js';
import { engine, expectStatus, startApp, testSchemaName, type TestApp } from './helpers.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBin = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;
const HEX40 = /[0-9a-f]{40}/g;
const SITES = '/api/dcim/sites/';
const PROVISION = '/api/users/tokens/provision/';

interface Run { code: number | null; stdout: string; stderr: string }

/** The environment `npm start` would have for this database (and nothing of the test process's own). */
function envFor(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databaseSchema'>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: config.dataDir, LOG_REQUESTS: '0', ...extra };
  if (config.databaseUrl) env.DATABASE_URL = config.databaseUrl;
  if (config.databaseSchema) env.DATABASE_SCHEMA = config.databaseSchema;
  return env;
}

/** Runs `cli.ts <args>` with stdin closed (not a terminal). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(nodeBin, ['--import', 'tsx', join(root, 'runtime/cli.ts'), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`cli ${args.join(' ')} did not finish in 90 s: ${stdout} ${stderr}`)); }, 90_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolveRun({ code, stdout, stderr }); });
  });
}

function expectExit(run: Run, code: number, what: string): void {
  if (run.code !== code) throw new Error(`${what}: expected exit ${code}, got ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

const starting = startApp();
let app: TestApp;
let env: NodeJS.ProcessEnv;

const test = suite('cli against a running service');
test.before(async () => {
  app = await starting;
  env = envFor(app.running.config);
});
test.after(() => app.stop());

const ROOT = { username: 'root_cli', password: 'Root-cli-passphrase-1', email: 'root@example.org' };

test('createsuperuser with flags; provisioning then accepts those credentials', async () => {
  const run = await cli(['createsuperuser', '--username', ROOT.username, '--password', ROOT.password, '--email', ROOT.email], env);
  expectExit(run, 0, 'createsuperuser');
  assert.ok(run.stdout.includes(ROOT.username), run.stdout);
  assert.not.ok(run.stdout.includes(ROOT.password) || run.stderr.includes(ROOT.password), 'the password is not echoed');
  const users = await app.api('GET', `/api/users/users/?username=${ROOT.username}`);
  assert.is(users.body.count, 1);
  const user = users.body.results[0];
  assert.is(user.email, ROOT.email);
  assert.is(user.is_superuser, true);
  assert.is(user.is_staff, true);
  assert.is(user.is_active, true);
  const token = await app.api('POST', PROVISION, { username: ROOT.username, password: ROOT.password }, { token: null });
  expectStatus(token, 201, 'provision with the new superuser');
  expectStatus(await app.api('POST', SITES, { name: 'cli-root-site', slug: 'cli-root-site' }, { token: token.body.key }), 201, 'a superuser token writes');
  const row = await app.running.db('users_user').where('username', ROOT.username).first();
  assert.match(row.password, /^scrypt\$/, 'stored hashed');
});

test('createsuperuser refuses a taken name (1), missing input without a terminal (2), bad names (1); reads NETLEDGER_SUPERUSER_PASSWORD', async () => {
  const taken = await cli(['createsuperuser', '--username', ROOT.username, '--password', 'whatever-1'], env);
  expectExit(taken, 1, 'taken');
  assert.match(taken.stderr, /already taken/);
  const noName = await cli(['createsuperuser', '--password', 'whatever-1'], env);
  expectExit(noName, 2, 'no --username, stdin not a terminal');
  assert.match(noName.stderr, /--username/);
  const noPassword = await cli(['createsuperuser', '--username', 'nopw_cli'], env);
  expectExit(noPassword, 2, 'no password');
  assert.match(noPassword.stderr, /NETLEDGER_SUPERUSER_PASSWORD/);
  const badName = await cli(['createsuperuser', '--username', 'has space', '--password', 'whatever-1'], env);
  expectExit(badName, 1, 'invalid username');
  assert.match(badName.stderr, /username/);
  expectExit(await cli(['createsuperuser', '--username', 'mail_cli', '--email', 'not-an-address', '--password', 'whatever-1'], env), 2, 'invalid email');
  const unknownFlag = await cli(['createsuperuser', '--nope'], env);
  expectExit(unknownFlag, 2, 'unknown flag');
  const fromEnv = await cli(['createsuperuser', '--username', 'env_cli', '--email', 'env@example.org'], { ...env, NETLEDGER_SUPERUSER_PASSWORD: 'Env-cli-passphrase-2' });
  expectExit(fromEnv, 0, 'password from the environment');
  expectStatus(await app.api('POST', PROVISION, { username: 'env_cli', password: 'Env-cli-passphrase-2' }, { token: null }), 201);
  for (const name of ['nopw_cli', 'mail_cli']) assert.is((await app.api('GET', `/api/users/users/?username=${name}`)).body.count, 0, `no ${name} half-made`);
});

test('create-token --read-only prints a key, once, that can GET but not POST', async () => {
  const run = await cli(['create-token', '--user', ROOT.username, '--read-only'], env);
  expectExit(run, 0, 'create-token');
  const keys = (run.stdout + run.stderr).match(HEX40) ?? [];
  assert.is(keys.length, 1, `exactly one key in the output: ${run.stdout}${run.stderr}`);
  const key = keys[0] ?? '';
  assert.is(run.stdout.trim(), key, 'stdout is the key alone, for scripts');
  expectStatus(await app.api('GET', SITES, undefined, { token: key }), 200, 'GET');
  const before = (await app.api('GET', `${SITES}?limit=1`)).body.count;
  const post = await app.api('POST', SITES, { name: 'cli-ro', slug: 'cli-ro' }, { token: key });
  expectStatus(post, 403, 'POST');
  assert.is((await app.api('GET', `${SITES}?limit=1`)).body.count, before);
  const listed = await app.api('GET', '/api/users/tokens/?limit=1000');
  const mine = listed.body.results.filter((t: any) => t.user.username === ROOT.username && t.write_enabled === false);
  assert.is(mine.length, 1);
  assert.not.ok(listed.text.includes(key), 'the API never shows it again');
  const stored = await app.running.db('users_token').select();
  assert.not.ok(JSON.stringify(stored).includes(key), 'nor does the database hold it');
});

test('create-token: write-enabled by default, --expires is honoured; unknown users and bad dates are refused', async () => {
  const expires = '2099-06-01T12:00:00Z';
  const run = await cli(['create-token', '--user', ROOT.username, '--expires', expires, '--description', 'from the cli'], env);
  expectExit(run, 0, 'create-token --expires');
  const key = run.stdout.trim();
  expectStatus(await app.api('POST', SITES, { name: 'cli-rw', slug: 'cli-rw' }, { token: key }), 201, 'write-enabled');
  const tokens = await app.api('GET', '/api/users/tokens/?limit=1000');
  const made = tokens.body.results.find((t: any) => t.description === 'from the cli');
  assert.ok(made);
  assert.is(Date.parse(made.expires), Date.parse(expires));
  assert.is(made.write_enabled, true);
  expectExit(await cli(['create-token', '--user', 'nobody_cli'], env), 1, 'unknown user');
  expectExit(await cli(['create-token', '--user', ROOT.username, '--expires', '2001-01-01T00:00:00Z'], env), 1, 'expiry in the past');
  expectExit(await cli(['create-token', '--user', ROOT.username, '--expires', 'tomorrow'], env), 2, 'not a date');
  expectExit(await cli(['create-token'], env), 2, 'no --user');
});

test('create-token --version 2 prints a v2 token (Bearer, both API versions); --version 1 a v1 token; another version is refused', async () => {
  const run = await cli(['create-token', '--user', ROOT.username, '--version', '2', '--description', 'v2 from the cli'], env);
  expectExit(run, 0, 'create-token --version 2');
  const plaintext = run.stdout.trim();
  assert.match(plaintext, /^nbt_[0-9A-Za-z]+\.[0-9A-Za-z]+$/, run.stdout);
  for (const base of ['/api', '/v4.6/api']) {
    const res = await fetch(`${app.url}${base}/dcim/sites/?limit=1`, { headers: { Authorization: `Bearer ${plaintext}`, Accept: 'application/json' } });
    assert.is(res.status, 200, `${base} takes the v2 token`);
  }
  const made = (await app.get('/v4.6/api/users/tokens/?limit=1000')).results.find((t: any) => t.description === 'v2 from the cli');
  assert.equal([made.version, plaintext.startsWith(`nbt_${made.key}.`)], [2, true]);
  const old = await cli(['create-token', '--user', ROOT.username, '--version', '1', '--description', 'v1 from the cli'], env);
  expectExit(old, 0, 'create-token --version 1');
  assert.match(old.stdout.trim(), /^[0-9a-f]{40}$/);
  assert.is((await app.get('/v4.6/api/users/tokens/?limit=1000')).results.find((t: any) => t.description === 'v1 from the cli').version, 1);
  expectStatus(await app.api('GET', SITES, undefined, { token: old.stdout.trim() }), 200, 'the v1 token works');
  expectExit(await cli(['create-token', '--user', ROOT.username, '--version', '3'], env), 2, 'version 3');
});

test('changepassword changes what provisioning accepts, and ends the user\'s browser sessions', async () => {
  const login = await fetch(`${app.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: ROOT.username, password: ROOT.password }) });
  assert.is(login.status, 200);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  assert.is((await fetch(`${app.url}${SITES}`, { headers: { Cookie: cookie } })).status, 200, 'logged in');
  const newPassword = 'Root-cli-passphrase-NEW';
  const run = await cli(['changepassword', ROOT.username, '--password', newPassword], env);
  expectExit(run, 0, 'changepassword');
  const old = await app.api('POST', PROVISION, { username: ROOT.username, password: ROOT.password }, { token: null });
  expectStatus(old, 403, 'the old password');
  expectStatus(await app.api('POST', PROVISION, { username: ROOT.username, password: newPassword }, { token: null }), 201, 'the new password');
  assert.is((await fetch(`${app.url}${SITES}`, { headers: { Cookie: cookie } })).status, 403, 'the session ended');
  expectExit(await cli(['changepassword', 'nobody_cli', '--password', 'x-123456'], env), 1, 'unknown user');
  expectExit(await cli(['changepassword', ROOT.username], env), 2, 'no password and no terminal');
  expectExit(await cli(['changepassword'], env), 2, 'no user');
  expectStatus(await app.api('POST', PROVISION, { username: ROOT.username, password: newPassword }, { token: null }), 201, 'the refusals changed nothing');
});

test('help lists the account commands', async () => {
  const run = await cli(['help'], env);
  expectExit(run, 0, 'help');
  for (const name of ['createsuperuser', 'create-token', 'changepassword']) assert.ok(run.stdout.includes(name), name);
});

test.run();

// ---------------------------------------------------------------------------------------------

const fresh = suite('cli on a fresh database');
let dataDir: string;
const schema = testSchemaName('t_cli');
fresh.before(() => { dataDir = mkdtempSync(join(tmpdir(), 'netledger-cli-')); });
fresh.after(() => rmSync(dataDir, { recursive: true, force: true }));

fresh('createsuperuser applies the migrations; the first start then creates no other admin', async () => {
  const databaseUrl = engine === 'postgres' ? (process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : null;
  const config = { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : null };
  const run = await cli(['createsuperuser', '--username', 'first_cli', '--email', 'first@example.org'], envFor(config, { NETLEDGER_SUPERUSER_PASSWORD: 'First-cli-passphrase-3' }));
  expectExit(run, 0, 'createsuperuser on an empty database');
  const token = await cli(['create-token', '--user', 'first_cli'], envFor(config));
  expectExit(token, 0, 'create-token on the same database');
  const key = token.stdout.trim();
  // The service started on that database: no ADMIN_TOKEN, no random admin, the CLI's user and token work.
  const started = await startApp({ DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}) });
  try {
    assert.is(started.running.admin, null, 'no first-start admin');
    const users = await started.api('GET', '/api/users/users/', undefined, { token: key });
    expectStatus(users, 200);
    assert.equal(users.body.results.map((u: any) => u.username), ['first_cli']);
    expectStatus(await started.api('POST', PROVISION, { username: 'first_cli', password: 'First-cli-passphrase-3' }, { token: null }), 201);
    const again = await cli(['migrate'], envFor(config));
    expectExit(again, 0, 'migrate');
    assert.match(again.stdout, /no pending migrations/);
  } finally {
    if (databaseUrl) await started.running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
    await started.stop();
  }
});

fresh.run();
