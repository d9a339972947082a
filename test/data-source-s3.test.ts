/**
 * `amazon-s3` data sources against an S3-compatible server the test starts (s3rver, a fake S3 on a
 * local port): the objects under the URL's prefix become data files (named below the prefix,
 * ignore rules and dot names skipped); a second sync follows changes; wrong keys, a missing bucket
 * and a URL naming no bucket end as errored jobs with readable messages that never show the secret key;
 * the change log keeps the secret as ********.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('data sources: amazon-s3');
let app: TestApp;
let s3: S3rver;
let client: S3Client;
let endpoint = '';
const dir = mkdtempSync(join(tmpdir(), 'netledger-s3-'));
// s3rver's one account
const KEYS = { aws_access_key_id: 'S3RVER', aws_secret_access_key: 'S3RVER' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function put(key: string, body: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: 'configs', Key: key, Body: body }));
}

async function sync(source: any): Promise<any> {
  const before = (await app.get(`/api/core/jobs/?object_type=core.datasource&object_id=${source.id}&limit=0`)).count;
  expectStatus(await app.api('POST', `/api/core/data-sources/${source.id}/sync/`), 200);
  for (let i = 0; i < 600; i++) {
    const jobs = (await app.get(`/api/core/jobs/?object_type=core.datasource&object_id=${source.id}&limit=0`)).results;
    if (jobs.length > before && ['completed', 'errored', 'failed'].includes(jobs[0].status.value)) return jobs[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the sync did not end');
}

async function files(source: any): Promise<Record<string, string>> {
  const list = (await app.get(`/api/core/data-files/?source_id=${source.id}&limit=0`)).results;
  return Object.fromEntries(list.map((f: any) => [f.path, f.hash]));
}

test.before(async () => {
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'configs', configs: [] }] });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: KEYS.aws_access_key_id, secretAccessKey: KEYS.aws_secret_access_key } });
  await put('netbox/templates/leaf.j2', 'hostname {{ device.name }}');
  await put('netbox/contexts/site.yaml', 'ntp: [10.0.0.1]');
  await put('netbox/notes.bak', 'old');
  await put('netbox/.hidden/secret.txt', 'no');
  await put('netbox-old/elsewhere.txt', 'not under the prefix');
  await put('top.txt', 'not under the prefix either');
  app = await startApp();
});
test.after(async () => {
  await app.stop();
  client.destroy();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a sync stores the objects under the prefix as data files; the next one follows changes', async () => {
  const source = await app.post('/api/core/data-sources/', { name: 's3-configs', type: 'amazon-s3', source_url: `${endpoint}/configs/netbox`, parameters: KEYS, ignore_rules: '*.bak' });
  assert.equal(source.type, { value: 'amazon-s3', label: 'Amazon S3' });
  const job = await sync(source);
  assert.is(job.status.value, 'completed', job.error);
  assert.equal(await files(source), { 'contexts/site.yaml': sha256('ntp: [10.0.0.1]'), 'templates/leaf.j2': sha256('hostname {{ device.name }}') });
  assert.is((await app.get(`/api/core/data-sources/${source.id}/`)).status.value, 'completed');

  await put('netbox/templates/leaf.j2', 'hostname {{ device.name }}!');
  await put('netbox/templates/spine.j2', 'spine');
  await client.send(new DeleteObjectCommand({ Bucket: 'configs', Key: 'netbox/contexts/site.yaml' }));
  const second = await sync(source);
  assert.is(second.status.value, 'completed', second.error);
  assert.equal(second.data, { files: 2, created: 1, updated: 1, deleted: 1 });
  assert.equal(await files(source), { 'templates/leaf.j2': sha256('hostname {{ device.name }}!'), 'templates/spine.j2': sha256('spine') });

  // the whole bucket when the URL gives no prefix
  const whole = await app.post('/api/core/data-sources/', { name: 's3-whole', type: 'amazon-s3', source_url: `${endpoint}/configs`, parameters: KEYS });
  assert.is((await sync(whole)).status.value, 'completed');
  assert.ok(Object.keys(await files(whole)).includes('top.txt'));
  assert.ok(Object.keys(await files(whole)).includes('netbox-old/elsewhere.txt'));
});

test('wrong keys and a missing bucket end as errored jobs that never show the secret; the change log hides it', async () => {
  const wrong = await app.post('/api/core/data-sources/', { name: 's3-wrong', type: 'amazon-s3', source_url: `${endpoint}/configs/netbox`, parameters: { aws_access_key_id: 'AKIAUNKNOWNKEY', aws_secret_access_key: 'very-secret-value' } });
  const denied = await sync(wrong);
  assert.is(denied.status.value, 'errored');
  assert.match(denied.error, /denied/);
  assert.not.match(denied.error, /very-secret-value|AKIAUNKNOWNKEY/);
  assert.is((await app.get(`/api/core/data-sources/${wrong.id}/`)).status.value, 'failed');
  const logged = await app.get(`/api/extras/object-changes/?changed_object_type=core.datasource&changed_object_id=${wrong.id}`);
  assert.is(logged.results[0].postchange_data.parameters.aws_secret_access_key, '********');
  assert.not.match(JSON.stringify(logged), /very-secret-value/);

  const missing = await app.post('/api/core/data-sources/', { name: 's3-missing', type: 'amazon-s3', source_url: `${endpoint}/no-such-bucket/x`, parameters: KEYS });
  const gone = await sync(missing);
  assert.is(gone.status.value, 'errored');
  assert.match(gone.error, /no-such-bucket/);
});

test('a URL that names no bucket is stored, as NetBox stores it, and its sync errors saying why; foreign parameters are a 400', async () => {
  const noBucket = await app.post('/api/core/data-sources/', { name: 's3-x', type: 'amazon-s3', source_url: 'https://s3.eu-west-1.amazonaws.com/' });
  const job = await sync(noBucket);
  assert.is(job.status.value, 'errored');
  assert.match(job.error, /names no bucket/);
  const relative = await app.post('/api/core/data-sources/', { name: 's3-y', type: 'amazon-s3', source_url: 'path/to/bucket' });
  assert.match((await sync(relative)).error, /https:\/\//);
  const params = await app.api('POST', '/api/core/data-sources/', { name: 's3-z', type: 'amazon-s3', source_url: 'https://configs.s3.eu-west-1.amazonaws.com/netbox', parameters: { branch: 'main' } });
  expectStatus(params, 400);
  assert.match(params.body.parameters[0], /branch/);
  expectStatus(await app.api('POST', '/api/core/data-sources/', { name: 's3-hosted', type: 'amazon-s3', source_url: 'https://configs.s3.eu-west-1.amazonaws.com/netbox', parameters: KEYS }), 201);
});

test.run();
