/**
 * A git data source whose remote accepts the connection and never answers: the sync must end, under
 * DATA_SOURCE_SYNC_TIMEOUT, as an errored job that says so and a failed source, with the git client
 * gone and the service still answering (a hung remote never hangs or takes down the process).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('data source sync: a remote that hangs');
let app: TestApp;
let server: Server;
const sockets = new Set<Socket>();
let repoUrl = '';
let connections = 0;

test.before(async () => {
  // accepts every connection, reads what git sends, answers nothing
  server = createServer((socket) => { connections++; sockets.add(socket); socket.on('close', () => sockets.delete(socket)); socket.on('error', () => {}); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  repoUrl = `http://127.0.0.1:${port}/repo.git`;
  app = await startApp({ DATA_SOURCE_SYNC_TIMEOUT: '2' });
});
test.after(async () => {
  await app.stop();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

test('the sync ends as an errored job naming the timeout; the git client is gone; the service answers', async () => {
  const source = await app.post('/api/core/data-sources/', { name: 'hung-remote', type: 'git', source_url: repoUrl, parameters: { username: 'u', password: 'hung-secret' } });
  expectStatus(await app.api('POST', `/api/core/data-sources/${source.id}/sync/`), 200);
  let job: any;
  for (let i = 0; i < 600 && !job; i++) {
    const jobs = (await app.get(`/api/core/jobs/?object_type=core.datasource&object_id=${source.id}`)).results;
    if (jobs[0] && ['completed', 'errored', 'failed'].includes(jobs[0].status.value)) job = jobs[0];
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(job, 'the sync job ended');
  assert.ok(connections > 0, 'git reached the server that never answers');
  assert.is(job.status.value, 'errored');
  assert.match(job.error, /did not finish within 2 s \(DATA_SOURCE_SYNC_TIMEOUT\)/);
  assert.not.match(job.error, /hung-secret/);
  assert.is((await app.get(`/api/core/data-sources/${source.id}/`)).status.value, 'failed');
  const left = spawnSync('pgrep', ['-f', repoUrl.replace('http://', '')], { encoding: 'utf8' });
  assert.is(left.stdout.trim(), '', 'no git process is left running');
  expectStatus(await app.api('GET', '/api/status/'), 200);
  // a source that syncs after it still works: the service is not wedged by the hung fetch
  const again = await app.api('POST', `/api/core/data-sources/${source.id}/sync/`);
  expectStatus(again, 200);
});

test.run();
