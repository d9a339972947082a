/**
 * ENFORCE_GLOBAL_UNIQUE (NetBox 3.7's default: on): duplicate prefixes and IP addresses in the global
 * table (no VRF) are refused while it is on and accepted when it is off; inside a VRF its
 * enforce_unique decides either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('global-unique');
let strict: TestApp;
let relaxed: TestApp;

test.before(async () => {
  strict = await startApp({ RUN_WORKER: '0' });
  relaxed = await startApp({ RUN_WORKER: '0', ENFORCE_GLOBAL_UNIQUE: '0' });
});
test.after(async () => { await strict.stop(); await relaxed.stop(); });

test('on by default: a duplicate prefix or address in the global table is a 400 naming the field', async () => {
  await strict.post('/api/ipam/prefixes/', { prefix: '10.10.0.0/16' });
  const prefix = await strict.api('POST', '/api/ipam/prefixes/', { prefix: '10.10.0.0/16' });
  expectStatus(prefix, 400);
  assert.equal(prefix.body, { prefix: ['Duplicate prefix found in global table: 10.10.0.0/16'] });
  await strict.post('/api/ipam/ip-addresses/', { address: '10.10.0.1/16' });
  const address = await strict.api('POST', '/api/ipam/ip-addresses/', { address: '10.10.0.1/24' });
  expectStatus(address, 400);
  assert.equal(address.body, { address: ['Duplicate IP address found in global table: 10.10.0.1/24'] });
  const bulk = await strict.api('POST', '/api/ipam/ip-addresses/', [{ address: '10.10.0.9/16' }, { address: '10.10.0.9/16' }]);
  expectStatus(bulk, 400, 'within one bulk write too');
});

test('off: duplicates in the global table are accepted; a VRF with enforce_unique still refuses them', async () => {
  await relaxed.post('/api/ipam/prefixes/', { prefix: '10.10.0.0/16' });
  await relaxed.post('/api/ipam/prefixes/', { prefix: '10.10.0.0/16' });
  await relaxed.post('/api/ipam/ip-addresses/', [{ address: '10.10.0.1/16' }, { address: '10.10.0.1/16' }]);
  assert.is((await relaxed.get('/api/ipam/ip-addresses/?address=10.10.0.1')).count, 2);
  const vrf = await relaxed.post('/api/ipam/vrfs/', { name: 'strict', enforce_unique: true });
  await relaxed.post('/api/ipam/ip-addresses/', { address: '10.10.0.1/16', vrf: vrf.id });
  const dup = await relaxed.api('POST', '/api/ipam/ip-addresses/', { address: '10.10.0.1/16', vrf: vrf.id });
  expectStatus(dup, 400);
  assert.equal(dup.body, { address: ['Duplicate IP address found in VRF strict: 10.10.0.1/16'] });
  // and a VRF without enforce_unique accepts them under either setting
  for (const app of [strict, relaxed]) {
    const open = await app.post('/api/ipam/vrfs/', { name: 'open', enforce_unique: false });
    await app.post('/api/ipam/prefixes/', [{ prefix: '10.20.0.0/16', vrf: open.id }, { prefix: '10.20.0.0/16', vrf: open.id }]);
  }
});

test('an unreadable value stops the start naming the variable', async () => {
  const { loadConfig } = await import('../runtime/core/config.js');
  const dir = mkdtempSync(join(tmpdir(), 'netledger-config-'));
  try {
    assert.throws(() => loadConfig({ ENFORCE_GLOBAL_UNIQUE: 'maybe', DATA_DIR: dir }), /ENFORCE_GLOBAL_UNIQUE/);
    assert.is(loadConfig({ DATA_DIR: dir }).enforceGlobalUnique, true);
    assert.is(loadConfig({ ENFORCE_GLOBAL_UNIQUE: 'false', DATA_DIR: dir }).enforceGlobalUnique, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
