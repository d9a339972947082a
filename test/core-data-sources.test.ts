/**
 * Data sources, data files and jobs (/api/core/), through HTTP: a local folder and a git repository
 * the test makes itself (git init, reached by a file:// URL) are synced by POST /sync/, which queues
 * a job one process claims; the files land in the database (a second service on the same database
 * reads them); changed, added and removed files follow on the next sync; ignore rules and dot files
 * are skipped. Failures (a folder that is not there, a URL git cannot clone) end as `errored` jobs
 * with a readable error and a `failed` source. Config templates, export templates and config
 * contexts take their content from a data file, /sync/ copies it again, and render-config renders a
 * device's and a VM's template synced from the git source.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const TERMINAL = ['completed', 'errored', 'failed'];

let starting: Promise<TestApp> | undefined;
let app: TestApp;
const folders: string[] = [];

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'netledger-source-test-'));
  folders.push(root);
  write(root, files);
  return root;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
  assert.is(run.status, 0, `git ${args.join(' ')}: ${run.stderr}`);
}

/** A repository on branch main with `files` committed. */
function repository(files: Record<string, string>): string {
  const root = folder(files);
  git(root, 'init', '--quiet');
  git(root, 'add', '.');
  git(root, 'commit', '--quiet', '-m', 'first');
  return root;
}

function commit(root: string, files: Record<string, string>): void {
  write(root, files);
  git(root, 'add', '.');
  git(root, 'commit', '--quiet', '-m', 'change');
}

/** The jobs of a source once none is pending or running (a bound on the wait, not on the time). */
async function settledJobs(sourceId: number, count: number): Promise<any[]> {
  for (let i = 0; i < 600; i++) {
    const jobs = (await app.get(`/api/core/jobs/?object_type=core.datasource&object_id=${sourceId}&limit=0`)).results;
    if (jobs.length >= count && jobs.every((j: any) => TERMINAL.includes(j.status.value))) return jobs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the jobs of data source ${sourceId} did not end`);
}

/** POST /sync/, then the job it queued once it has ended. */
async function sync(source: any): Promise<any> {
  const before = (await app.get(`/api/core/jobs/?object_type=core.datasource&object_id=${source.id}&limit=0`)).count;
  const reply = await app.api('POST', `/api/core/data-sources/${source.id}/sync/`);
  expectStatus(reply, 200);
  assert.is(reply.body.id, source.id);
  const jobs = await settledJobs(source.id, before + 1);
  return jobs[0];
}

async function filesOf(source: any): Promise<any[]> {
  return (await app.get(`/api/core/data-files/?source_id=${source.id}&limit=0`)).results;
}

const test = suite(`core data sources (${engine})`);
test.before(async () => { app = await (starting ??= startApp()); });
test.after(async () => {
  await app.stop();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

test('a local source syncs its folder into data files; a second sync follows changes; the job records it', async () => {
  const root = folder({ 'a.txt': 'alpha', 'sub/b.yaml': 'b: 1\n', 'skip.bak': 'x', '.hidden': 'x', '.git/config': 'x' });
  const source = await app.post('/api/core/data-sources/', { name: unique('local'), type: 'local', source_url: pathToFileURL(root).href, ignore_rules: '*.bak' });
  assert.equal(source.status, { value: 'new', label: 'New' });
  assert.equal(source.type, { value: 'local', label: 'Local' });
  assert.is(source.file_count, 0);
  assert.equal(Object.keys(source).sort(), ['comments', 'created', 'custom_fields', 'description', 'display', 'enabled', 'file_count', 'id', 'ignore_rules', 'last_updated', 'name', 'parameters', 'source_url', 'status', 'type', 'url']);

  const job = await sync(source);
  assert.is(job.status.value, 'completed', job.error);
  assert.is(job.name, 'sync');
  assert.is(job.object_type, 'core.datasource');
  assert.is(job.user.username, 'admin');
  assert.ok(job.started && job.completed && job.created);
  assert.equal(job.data, { files: 2, created: 2, updated: 0, deleted: 0 });
  assert.is(job.error, '');
  assert.match(job.job_id, /^[0-9a-f-]{36}$/);
  assert.equal(Object.keys(job).sort(), ['completed', 'created', 'data', 'display', 'error', 'id', 'interval', 'job_id', 'name', 'object_id', 'object_type', 'scheduled', 'started', 'status', 'url', 'user']);

  const synced = await app.get(`/api/core/data-sources/${source.id}/`);
  assert.is(synced.status.value, 'completed');
  assert.is(synced.file_count, 2);
  const files = await filesOf(source);
  assert.equal(files.map((f) => f.path), ['a.txt', 'sub/b.yaml']);
  assert.is(files[0].size, 5);
  assert.is(files[0].hash, sha256('alpha'));
  assert.is(files[0].source.id, source.id);
  assert.equal(Object.keys(files[0]).sort(), ['display', 'hash', 'id', 'last_updated', 'path', 'size', 'source', 'url']);
  assert.equal(Object.keys((await app.get(`/api/core/data-files/${files[0].id}/?brief=1`))).sort(), ['display', 'id', 'path', 'url']);
  assert.equal((await app.get(`/api/core/data-files/?source=${encodeURIComponent(source.name)}&path__ic=SUB`)).results.map((f: any) => f.id), [files[1].id]);
  expectStatus(await app.api('POST', '/api/core/data-files/', { path: 'x' }), 405);

  write(root, { 'a.txt': 'alpha, changed', 'c.txt': 'gamma' });
  unlinkSync(join(root, 'sub/b.yaml'));
  const again = await sync(source);
  assert.equal(again.data, { files: 2, created: 1, updated: 1, deleted: 1 });
  const after = await filesOf(source);
  assert.equal(after.map((f) => f.path), ['a.txt', 'c.txt']);
  assert.is(after[0].id, files[0].id, 'a changed file keeps its id');
  assert.is(after[0].hash, sha256('alpha, changed'));
  assert.ok(after[0].last_updated > files[0].last_updated);

  // jobs: filters and shapes
  const completed = await app.get(`/api/core/jobs/?status=completed&object_id=${source.id}&user=admin`);
  assert.is(completed.count, 2);
  assert.is((await app.get(`/api/core/jobs/?status=errored&object_id=${source.id}`)).count, 0);
  assert.ok((await app.get(`/api/core/jobs/?created__after=2000-01-01T00:00:00Z&object_id=${source.id}`)).count === 2);
  expectStatus(await app.api('DELETE', `/api/core/jobs/${job.id}/`), 405);

  // a second service on the same database reads the files the first stored
  const other = await sameDatabase();
  try {
    const seen = (await other.get(`/api/core/data-files/?source_id=${source.id}`)).results;
    assert.equal(seen.map((f: any) => f.hash), after.map((f) => f.hash));
  } finally {
    await other.running.close();
  }

  // deleting the source takes its files
  expectStatus(await app.api('DELETE', `/api/core/data-sources/${source.id}/`), 204);
  assert.is((await app.get(`/api/core/data-files/?source_id=${source.id}`)).count, 0);
});

test('failures end as errored jobs with a readable error and a failed source, never a 500', async () => {
  const missing = await app.post('/api/core/data-sources/', { name: unique('gone'), type: 'local', source_url: `/nonexistent/${unique('dir')}` });
  const job = await sync(missing);
  assert.is(job.status.value, 'errored');
  assert.match(job.error, /does not exist/);
  assert.is((await app.get(`/api/core/data-sources/${missing.id}/`)).status.value, 'failed');

  const nowhere = await app.post('/api/core/data-sources/', { name: unique('badgit'), type: 'git', source_url: `file:///nonexistent/${unique('repo')}` });
  const failed = await sync(nowhere);
  assert.is(failed.status.value, 'errored');
  assert.match(failed.error, /repository|not found|does not exist/i);
  assert.is((await app.get(`/api/core/data-sources/${nowhere.id}/`)).status.value, 'failed');

  const branch = await app.post('/api/core/data-sources/', { name: unique('branch'), type: 'git', source_url: pathToFileURL(repository({ 'x.txt': 'x' })).href, parameters: { branch: 'no-such-branch', username: 'u', password: 'secret-word' } });
  const noBranch = await sync(branch);
  assert.is(noBranch.status.value, 'errored');
  assert.match(noBranch.error, /no-such-branch/);
  assert.not.match(noBranch.error, /secret-word/);
  // the change log keeps no password
  const logged = await app.get(`/api/extras/object-changes/?changed_object_type=core.datasource&changed_object_id=${branch.id}`);
  assert.is(logged.results[0].postchange_data.parameters.password, '********');
  assert.is(logged.results[0].postchange_data.parameters.branch, 'no-such-branch');

  // refused before anything is queued
  const remote = await app.api('POST', '/api/core/data-sources/', { name: unique('x'), type: 'local', source_url: 'https://example.com/x' });
  expectStatus(remote, 400);
  assert.ok(remote.body.source_url);
  const relative = await app.api('POST', '/api/core/data-sources/', { name: unique('x'), type: 'local', source_url: 'templates' });
  expectStatus(relative, 400);
  assert.match(relative.body.source_url[0], /absolute/);
  const parameters = await app.api('POST', '/api/core/data-sources/', { name: unique('x'), type: 'git', source_url: 'https://example.com/x.git', parameters: { depth: 1 } });
  expectStatus(parameters, 400);
  assert.match(parameters.body.parameters[0], /depth/);
  const type = await app.api('POST', '/api/core/data-sources/', { name: unique('x'), type: 'ftp', source_url: 'ftp://example.com/' });
  expectStatus(type, 400);
  assert.ok(type.body.type);
  const disabled = await app.post('/api/core/data-sources/', { name: unique('off'), type: 'local', source_url: '/tmp', enabled: false });
  expectStatus(await app.api('POST', `/api/core/data-sources/${disabled.id}/sync/`), 400);
});

/** A second service on the first one's database (another process of the same installation). */
function sameDatabase(): Promise<TestApp> {
  return startApp(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: app.running.config.databaseSchema! } : { DATA_DIR: app.running.config.dataDir });
}

test('syncs sent together to two services on one database: each job is run once, and the files are stored once', async () => {
  const source = await app.post('/api/core/data-sources/', { name: unique('busy'), type: 'local', source_url: folder({ 'one.txt': '1', 'two.txt': '2' }) });
  const other = await sameDatabase();
  try {
    const replies = await Promise.all([app, other, app, other].map((service) => service.api('POST', `/api/core/data-sources/${source.id}/sync/`)));
    for (const r of replies) expectStatus(r, 200);
    const jobs = await settledJobs(source.id, 4);
    assert.is(jobs.length, 4);
    assert.ok(jobs.some((j) => j.status.value === 'completed'));
    for (const j of jobs.filter((j) => j.status.value !== 'completed')) assert.match(j.error, /another sync/);
    assert.equal((await filesOf(source)).map((f) => f.path), ['one.txt', 'two.txt']);
    assert.is((await app.get(`/api/core/data-sources/${source.id}/`)).status.value, 'completed');
  } finally {
    await other.running.close();
  }

  // a job queued by a process that went away before starting it is taken by a worker's poll
  const db = app.running.db;
  await db('core_job').insert({ object_type: 'core.datasource', object_id: source.id, name: 'sync', status: 'pending', created: new Date().toISOString(), job_id: '00000000-0000-4000-8000-' + randomBytes(6).toString('hex'), error: '' });
  const after = await settledJobs(source.id, 5);
  assert.is(after[0].status.value, 'completed', after[0].error);
  assert.is(after[0].user, null);
});

test('templates and contexts from a git source: content copied, /sync/ follows the file, render-config renders it', async () => {
  const repo = repository({ 'templates/device.j2': 'hostname {{ device.name }}\n', 'templates/vm.j2': 'vm {{ virtualmachine.name }}', 'contexts/ntp.yaml': 'ntp:\n  - 192.0.2.1\n', 'export/sites.j2': '{% for s in queryset %}{{ s.name }};{% endfor %}', 'bad.yaml': 'a: [' });
  const source = await app.post('/api/core/data-sources/', { name: unique('git'), type: 'git', source_url: pathToFileURL(repo).href, parameters: { branch: 'main' } });
  const job = await sync(source);
  assert.is(job.status.value, 'completed', job.error);
  const files = new Map((await filesOf(source)).map((f) => [f.path, f]));
  assert.equal([...files.keys()], ['bad.yaml', 'contexts/ntp.yaml', 'export/sites.j2', 'templates/device.j2', 'templates/vm.j2']);

  const tpl = await app.post('/api/extras/config-templates/', { name: unique('tpl'), template_code: 'placeholder', data_file: files.get('templates/device.j2').id });
  assert.is(tpl.template_code, 'hostname {{ device.name }}\n');
  assert.is(tpl.data_source.id, source.id);
  assert.is(tpl.data_file.path, 'templates/device.j2');
  assert.is(tpl.data_path, 'templates/device.j2');
  assert.ok(tpl.data_synced);
  assert.equal((await app.get(`/api/extras/config-templates/?data_source_id=${source.id}`)).results.map((t: any) => t.id), [tpl.id]);
  assert.equal((await app.get(`/api/extras/config-templates/?data_file_id=${files.get('templates/device.j2').id}`)).results.map((t: any) => t.id), [tpl.id]);

  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const mfr = await app.post('/api/dcim/manufacturers/', { name: unique('m'), slug: unique('m') });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: mfr.id, model: unique('t'), slug: unique('t') });
  const role = await app.post('/api/dcim/device-roles/', { name: unique('r'), slug: unique('r') });
  const device = await app.post('/api/dcim/devices/', { name: unique('dev'), device_type: type.id, role: role.id, site: site.id, config_template: tpl.id });
  const rendered = await app.api('POST', `/api/dcim/devices/${device.id}/render-config/`, {});
  expectStatus(rendered, 200);
  // Jinja2 drops the last newline (keep_trailing_newline is off)
  assert.is(rendered.body.content, `hostname ${device.name}`);

  // the file changes upstream: the source's sync, then the template's, carry it to render-config
  commit(repo, { 'templates/device.j2': 'hostname {{ device.name }}\nsite {{ device.site.slug }}\n' });
  assert.is((await sync(source)).status.value, 'completed');
  assert.is((await app.get(`/api/extras/config-templates/${tpl.id}/`)).template_code, 'hostname {{ device.name }}\n', 'a template keeps its content until its own sync');
  const resynced = await app.api('POST', `/api/extras/config-templates/${tpl.id}/sync/`);
  expectStatus(resynced, 200);
  assert.is(resynced.body.template_code, 'hostname {{ device.name }}\nsite {{ device.site.slug }}\n');
  assert.ok(resynced.body.data_synced > tpl.data_synced);
  assert.is((await app.api('POST', `/api/dcim/devices/${device.id}/render-config/`, {})).body.content, `hostname ${device.name}\nsite ${site.slug}`);
  const logged = await app.get(`/api/extras/object-changes/?changed_object_type=extras.configtemplate&changed_object_id=${tpl.id}&action=update`);
  assert.ok(logged.count >= 1, 'the sync is change-logged');

  const vmTemplate = await app.post('/api/extras/config-templates/', { name: unique('vmtpl'), template_code: 'x', data_file: files.get('templates/vm.j2').id });
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: unique('vm'), site: site.id, config_template: vmTemplate.id });
  assert.is((await app.api('POST', `/api/virtualization/virtual-machines/${vm.id}/render-config/`, {})).body.content, `vm ${vm.name}`);

  // a config context reads its file as YAML; a file that is not an object is a 400 on data_file
  const context = await app.post('/api/extras/config-contexts/', { name: unique('ctx'), data: {}, data_file: files.get('contexts/ntp.yaml').id });
  assert.equal(context.data, { ntp: ['192.0.2.1'] });
  assert.is(context.data_source.id, source.id);
  assert.equal((await app.api('POST', `/api/dcim/devices/${device.id}/render-config/`, {})).status, 200);
  assert.equal((await app.get(`/api/dcim/devices/${device.id}/`)).config_context.ntp, ['192.0.2.1']);
  const bad = await app.api('POST', '/api/extras/config-contexts/', { name: unique('ctx'), data: {}, data_file: files.get('bad.yaml').id });
  expectStatus(bad, 400);
  assert.match(bad.body.data_file[0], /YAML/);
  expectStatus(await app.api('POST', `/api/extras/config-contexts/${context.id}/sync/`), 200);

  // an export template renders a list through the file's code
  const exporter = await app.post('/api/extras/export-templates/', { name: unique('exp'), content_types: ['dcim.site'], template_code: 'x', data_file: files.get('export/sites.j2').id });
  assert.is(exporter.template_code, '{% for s in queryset %}{{ s.name }};{% endfor %}');
  const exported = await app.api('GET', `/api/dcim/sites/?id=${site.id}&export=${encodeURIComponent(exporter.name)}`);
  expectStatus(exported, 200);
  assert.is(exported.text, `${site.name};`);

  // no data file: the object stands on its own again
  const detached = await app.patch(`/api/extras/config-templates/${vmTemplate.id}/`, { data_file: null });
  assert.equal([detached.data_source, detached.data_file, detached.data_path, detached.data_synced], [null, null, '', null]);
  assert.is(detached.template_code, 'vm {{ virtualmachine.name }}');
  // a source in use cannot be deleted
  expectStatus(await app.api('DELETE', `/api/core/data-sources/${source.id}/`), 409);
});

test.run();
