/**
 * A bulk create of IP addresses: the address text as NetBox stores it (a dotted quad's canonical form;
 * leading zeros refused under `address`), duplicates within the request and against stored rows
 * refused under `address`, and the INSERTs (which SQLite runs past knex) seen by query listeners and
 * rolled back with the request when one element fails.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';
import { applyFilters } from '../runtime/data/filters.js';
import { model } from '../runtime/data/registry.js';

const test = suite('ip addresses: bulk create');
let app: TestApp;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('addresses are stored in their canonical form', async () => {
  const inputs = ['10.9.0.1/24', '10.9.0.2/24', ' 10.9.0.3/24 ', '10.9.0.4', '255.255.255.255/32', '0.0.0.1/1', '192.0.2.250/31', '2001:DB8::1/64'];
  const created = await app.post('/api/ipam/ip-addresses/', inputs.map((address) => ({ address })));
  assert.equal(created.map((r: { address: string }) => r.address), ['10.9.0.1/24', '10.9.0.2/24', '10.9.0.3/24', '10.9.0.4/32', '255.255.255.255/32', '0.0.0.1/1', '192.0.2.250/31', '2001:db8::1/64']);
  const found = await app.get('/api/ipam/ip-addresses/?parent=10.9.0.0/24');
  assert.equal(found.count, 4);
  for (const bad of ['10.9.0.256/24', '010.9.0.5/24', '10.9.00.5/24', '10.9.0/24', '10.9.0.1.1/24', '10.9.0.1/33']) {
    const reply = await app.api('POST', '/api/ipam/ip-addresses/', { address: bad });
    expectStatus(reply, 400, bad);
    assert.ok(reply.body.address, bad);
  }
});

test('q finds addresses by DNS name and description; on PostgreSQL through trigram indexes without empty text', async () => {
  const made = await app.post('/api/ipam/ip-addresses/', [
    { address: '10.6.0.1/24', dns_name: 'Alpha-Qz.example.com' }, { address: '10.6.0.2/24', description: 'the qzeta uplink' },
    { address: '10.6.0.3/24' }, { address: '10.6.0.4/24', dns_name: 'other.example.com', description: 'QZ' },
  ]);
  const found = async (q: string) => (await app.get(`/api/ipam/ip-addresses/?q=${encodeURIComponent(q)}&limit=100`)).results.map((r: { id: number }) => r.id).sort();
  assert.equal(await found('alpha-qz'), [made[0].id]);
  assert.equal(await found('QZETA'), [made[1].id]);
  assert.equal(await found('qz'), [made[0].id, made[1].id, made[3].id].sort(), 'two letters: no trigram, same answer');
  assert.equal(await found('10.6.0.3/'), [made[2].id], 'an address without text is found by its address');
  if (engine === 'postgres') {
    const { rows } = await app.running.db.raw("select indexname, indexdef from pg_indexes where schemaname = current_schema() and indexname like 'ipam_ipaddress_%_trgm_idx' order by 1");
    assert.is(rows.length, 2);
    for (const r of rows) assert.match(r.indexdef, /WHERE \(\((dns_name|description)\)::text <> ''::text\)/, r.indexname);
    // The planner takes a partial index only where the query repeats its condition: `q`'s own SQL,
    // with sequential scans priced out (the test table is small), reads both trigram indexes.
    const db = app.running.db;
    const qb = db('ipam_ipaddress').select('id');
    applyFilters(qb, model('IPAddress'), new URLSearchParams('q=alpha-qz'), { db });
    const plan = await db.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      return (await trx.raw(`explain ${qb.toString()}`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    });
    assert.ok(plan.includes('ipam_ipaddress_dns_name_trgm_idx') && plan.includes('ipam_ipaddress_description_trgm_idx'), plan);
  }
});

test('duplicates within the request and against stored rows name the address; nothing is written', async () => {
  const before = (await app.get('/api/ipam/ip-addresses/?limit=1')).count;
  const reply = await app.api('POST', '/api/ipam/ip-addresses/', [{ address: '10.8.0.1/24' }, { address: '10.8.0.1/16' }, { address: '10.9.0.1/16' }, { address: '10.8.0.2/24' }]);
  expectStatus(reply, 400, 'duplicates');
  assert.equal(reply.body[0], {});
  assert.ok(reply.body[1].address?.[0].includes('Duplicate IP address'));
  assert.ok(reply.body[2].address?.[0].includes('Duplicate IP address'));
  assert.equal(reply.body[3], {});
  assert.is((await app.get('/api/ipam/ip-addresses/?limit=1')).count, before);
});

test('the duplicate check reads the host index (family, host), not the whole table', async () => {
  const db = app.running.db;
  const lookups: { sql: string; bindings: unknown[] }[] = [];
  const listener = (q: { sql: string; bindings: unknown[] }) => { if (/^select .*address_host.* from [`"]ipam_ipaddress[`"]/i.test(q.sql)) lookups.push(q); };
  db.on('query', listener);
  try {
    await app.post('/api/ipam/ip-addresses/', Array.from({ length: 20 }, (_, i) => ({ address: `10.5.0.${i + 1}/24` })));
  } finally {
    db.removeListener('query', listener);
  }
  assert.is(lookups.length, 1, lookups.map((l) => l.sql).join('\n'));
  const { sql, bindings } = lookups[0];
  if (engine === 'sqlite') {
    const plan = (await db.raw(`explain query plan ${sql}`, bindings as never[])).map((r: { detail: string }) => r.detail).join('\n');
    assert.match(plan, /SEARCH ipam_ipaddress USING (COVERING )?INDEX ipam_ipaddress_address_host_idx \(family=\? AND address_host=\?\)/, plan);
  } else {
    // sequential scans priced out (the test table is small): the index is entered by its leading
    // column (a btree takes a later column's condition alone only by reading the whole index)
    const plan = await db.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      return (await trx.raw(`explain ${sql.replace(/\$\d+/g, '?')}`, bindings as never[])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /Index Scan using ipam_ipaddress_address_host_idx on ipam_ipaddress[^\n]*\n\s*Index Cond: \(family = ANY/, plan);
  }
});

test('the INSERTs of a bulk create reach query listeners and commit together', async () => {
  const inserts: string[] = [];
  const listener = (q: { sql: string }) => { const m = /^insert into [`"]?(\w+)/i.exec(q.sql); if (m) inserts.push(m[1]); };
  app.running.db.on('query', listener);
  const created = await app.post('/api/ipam/ip-addresses/', Array.from({ length: 300 }, (_, i) => ({ address: `10.7.${Math.floor(i / 250)}.${(i % 250) + 1}/16`, status: 'active' })));
  app.running.db.removeListener('query', listener);
  assert.is(created.length, 300);
  assert.ok(inserts.includes('ipam_ipaddress'), inserts.join());
  assert.ok(inserts.includes('extras_objectchange'), inserts.join());
  const changes = await app.get(`/api/extras/object-changes/?changed_object_type=ipam.ipaddress&changed_object_id=${created[299].id}`);
  assert.is(changes.count, 1);
  assert.is(changes.results[0].postchange_data.address, '10.7.1.50/16');
});

test.run();
