/**
 * The OpenAPI document and Swagger UI's files are sent compressed when the client accepts it (Brotli
 * first, then gzip), with Vary: Accept-Encoding, an ETag (If-None-Match: 304) and Cache-Control;
 * decompressed they are the plain body byte for byte, under both API versions and as YAML. HEAD
 * answers carry the headers and no body.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startApp, type TestApp } from './helpers.js';

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** One request on its own connection, its body as the bytes sent (no decoding). */
function raw(app: TestApp, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((done, fail) => {
    const req = request(`${app.url}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

const test = suite<{ app: TestApp }>('schema compression');
test.before(async (ctx) => { ctx.app = await startApp(); });
test.after(async ({ app }) => { await app.stop(); });

for (const path of ['/api/schema/', '/api/schema/?format=json', '/v4.6/api/schema/', '/api/schema/?format=yaml', '/api/docs/?format=openapi']) {
  test(`${path}: br and gzip decompress to the plain body; identity when not accepted`, async ({ app }) => {
    const plain = await raw(app, 'GET', path);
    assert.is(plain.status, 200);
    assert.is(plain.headers['content-encoding'], undefined);
    const br = await raw(app, 'GET', path, { 'Accept-Encoding': 'gzip, deflate, br' });
    const gz = await raw(app, 'GET', path, { 'Accept-Encoding': 'gzip' });
    assert.is(br.headers['content-encoding'], 'br');
    assert.is(gz.headers['content-encoding'], 'gzip');
    assert.ok(brotliDecompressSync(br.body).equals(plain.body), 'brotli decodes to the plain body');
    assert.ok(gunzipSync(gz.body).equals(plain.body), 'gzip decodes to the plain body');
    // the document is megabytes; compressed, a few percent of that
    assert.ok(plain.body.length > 1_000_000, `plain ${plain.body.length}`);
    assert.ok(gz.body.length < plain.body.length / 10, `gzip ${gz.body.length} of ${plain.body.length}`);
    assert.ok(br.body.length < gz.body.length, `brotli ${br.body.length} < gzip ${gz.body.length}`);
    assert.is(Number(br.headers['content-length']), br.body.length);
    for (const reply of [plain, br, gz]) {
      assert.match(String(reply.headers.vary), /Accept-Encoding/i);
      assert.match(String(reply.headers['cache-control']), /max-age=\d+/);
      assert.is(reply.headers.etag, plain.headers.etag, 'one ETag per document');
    }
    if (path.includes('yaml')) assert.match(String(plain.headers['content-type']), /openapi/);
    else {
      assert.match(String(plain.headers['content-type']), /^application\/json/);
      assert.ok(JSON.parse(plain.body.toString('utf8')).openapi);
    }
  });
}

test('the ETag answers 304 with no body; another ETag gets the document', async ({ app }) => {
  const first = await raw(app, 'GET', '/api/schema/', { 'Accept-Encoding': 'br' });
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[0-9a-f]+"$/);
  const again = await raw(app, 'GET', '/api/schema/', { 'Accept-Encoding': 'br', 'If-None-Match': etag });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
  assert.is((await raw(app, 'GET', '/api/schema/', { 'If-None-Match': `W/${etag}, "other"` })).status, 304, 'a weak or listed validator matches');
  assert.is((await raw(app, 'GET', '/api/schema/', { 'If-None-Match': '"other"' })).status, 200);
  const other = await raw(app, 'GET', '/v4.6/api/schema/');
  assert.is.not(other.headers.etag, etag, 'each version its own document');
  assert.is((await raw(app, 'GET', '/api/schema/?format=yaml')).headers.etag === etag, false, 'YAML its own');
});

test('HEAD: the GET headers, no body', async ({ app }) => {
  for (const encoding of ['br', 'gzip', 'identity']) {
    const get = await raw(app, 'GET', '/api/schema/', { 'Accept-Encoding': encoding });
    const head = await raw(app, 'HEAD', '/api/schema/', { 'Accept-Encoding': encoding });
    assert.is(head.status, 200);
    assert.is(head.body.length, 0, encoding);
    assert.is(head.headers['content-length'], get.headers['content-length'], encoding);
    assert.is(head.headers['content-encoding'], get.headers['content-encoding'], encoding);
    assert.is(head.headers.etag, get.headers.etag);
  }
  const notModified = await raw(app, 'HEAD', '/api/schema/', { 'If-None-Match': String((await raw(app, 'HEAD', '/api/schema/')).headers.etag) });
  assert.is(notModified.status, 304);
  assert.is(notModified.body.length, 0);
});

test("Swagger UI's files: compressed, cached, 304 by ETag", async ({ app }) => {
  const path = '/api/docs/static/swagger-ui-bundle.js';
  const plain = await raw(app, 'GET', path);
  assert.is(plain.status, 200);
  const br = await raw(app, 'GET', path, { 'Accept-Encoding': 'br, gzip' });
  assert.is(br.headers['content-encoding'], 'br');
  assert.ok(brotliDecompressSync(br.body).equals(plain.body));
  assert.ok(br.body.length < plain.body.length / 2);
  assert.match(String(br.headers.vary), /Accept-Encoding/i);
  assert.is((await raw(app, 'GET', path, { 'If-None-Match': String(br.headers.etag) })).status, 304);
  const head = await raw(app, 'HEAD', path, { 'Accept-Encoding': 'gzip' });
  assert.is(head.body.length, 0);
  assert.is(head.headers['content-encoding'], 'gzip');
});

test('/static files of the web interface: the same negotiation', async ({ app }) => {
  const page = await app.api('GET', '/login/', undefined, { token: null, headers: { Accept: 'text/html' } });
  const html = typeof page.body === 'string' ? page.body : '';
  const path = /\/static\/[0-9a-f]+\/tabler\.css/.exec(html)?.[0];
  assert.ok(path, 'the login page links the stylesheet');
  const plain = await raw(app, 'GET', path);
  const gz = await raw(app, 'GET', path, { 'Accept-Encoding': 'gzip' });
  assert.is(gz.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(gz.body).equals(plain.body));
  assert.is((await raw(app, 'GET', path, { 'If-None-Match': String(gz.headers.etag) })).status, 304);
});

test.run();
