/**
 * Circuits: termination_a / termination_z on the circuit, circuit counts on providers, types, tenants
 * and sites, the circuit filters that go through terminations, and the model rules (a termination at a
 * site or a provider network, exactly one; a provider account of the circuit's provider), each with
 * the 400 and the accepted counterpart, single and bulk in the same words.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('circuits');
let app: TestApp;
let n = 0;
const slug = (base: string) => `${base}-${++n}`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

async function fixture() {
  const provider = await app.post('/api/circuits/providers/', { name: slug('Transit'), slug: slug('transit') });
  const type = await app.post('/api/circuits/circuit-types/', { name: slug('Internet'), slug: slug('internet'), color: '00ff00' });
  const region = await app.post('/api/dcim/regions/', { name: slug('Europe'), slug: slug('europe') });
  const site = await app.post('/api/dcim/sites/', { name: slug('Paris'), slug: slug('paris'), region: region.id });
  const tenant = await app.post('/api/tenancy/tenants/', { name: slug('Acme'), slug: slug('acme') });
  const network = await app.post('/api/circuits/provider-networks/', { provider: provider.id, name: slug('MPLS cloud') });
  return { provider, type, region, site, tenant, network };
}

test('a circuit shows its A and Z terminations in the short form; counts follow', async () => {
  const { provider, type, site, tenant, network } = await fixture();
  const circuit = await app.post('/api/circuits/circuits/', { cid: 'CID-1', provider: provider.id, type: type.id, tenant: tenant.id, commit_rate: 10000 });
  assert.is(circuit.termination_a, null);
  assert.equal(circuit.status, { value: 'active', label: 'Active' });
  const a = await app.post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id, port_speed: 1000000, xconnect_id: 'XC-9' });
  assert.is(a.term_side, 'A', 'term_side is a bare value, as in NetBox');
  assert.is(a.display, 'CID-1: Termination A');
  assert.is(a.circuit.id, circuit.id);
  await app.post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'Z', provider_network: network.id });
  const shown = await app.get(`/api/circuits/circuits/${circuit.id}/`);
  assert.equal(Object.keys(shown.termination_a).sort(), ['description', 'display', 'id', 'port_speed', 'provider_network', 'site', 'upstream_speed', 'url', 'xconnect_id']);
  assert.is(shown.termination_a.id, a.id);
  assert.is(shown.termination_a.site.id, site.id);
  assert.is(shown.termination_a.port_speed, 1000000);
  assert.is(shown.termination_a.xconnect_id, 'XC-9');
  assert.is(shown.termination_z.provider_network.id, network.id);
  assert.is(shown.termination_z.site, null);
  assert.is((await app.get(`/api/circuits/providers/${provider.id}/`)).circuit_count, 1);
  assert.is((await app.get(`/api/circuits/circuit-types/${type.id}/`)).circuit_count, 1);
  assert.is((await app.get(`/api/tenancy/tenants/${tenant.id}/`)).circuit_count, 1);
  assert.is((await app.get(`/api/dcim/sites/${site.id}/`)).circuit_count, 1);
  // a deleted termination leaves the circuit without that side
  expectStatus(await app.api('DELETE', `/api/circuits/circuit-terminations/${a.id}/`), 204);
  assert.is((await app.get(`/api/circuits/circuits/${circuit.id}/`)).termination_a, null);
});

test('a provider lists its accounts and ASNs', async () => {
  const { provider } = await fixture();
  const rir = await app.post('/api/ipam/rirs/', { name: slug('RIPE'), slug: slug('ripe') });
  const asn = await app.post('/api/ipam/asns/', { asn: 64512 + n, rir: rir.id });
  const account = await app.post('/api/circuits/provider-accounts/', { provider: provider.id, account: slug('ACC') });
  const shown = await app.patch(`/api/circuits/providers/${provider.id}/`, { asns: [asn.id] });
  assert.equal(shown.asns.map((a: any) => a.id), [asn.id]);
  assert.equal(shown.accounts, [{ id: account.id, url: account.url, display: account.display, name: '', account: account.account }]);
  // q finds a provider by an account's ID or name (NetBox)
  assert.equal((await app.get(`/api/circuits/providers/?q=${account.account.toLowerCase()}`)).results.map((p: any) => p.id), [provider.id]);
  assert.equal((await app.get(`/api/circuits/providers/?asn_id=${asn.id}`)).results.map((p: any) => p.id), [provider.id]);
});

test('circuits filter by the site, region and provider network of their terminations', async () => {
  const { provider, type, region, site, network } = await fixture();
  const here = await app.post('/api/circuits/circuits/', { cid: slug('here'), provider: provider.id, type: type.id });
  const there = await app.post('/api/circuits/circuits/', { cid: slug('there'), provider: provider.id, type: type.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: here.id, term_side: 'A', site: site.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: there.id, term_side: 'A', provider_network: network.id });
  const ids = async (query: string) => (await app.get(`/api/circuits/circuits/?provider_id=${provider.id}&${query}`)).results.map((c: any) => c.id);
  assert.equal(await ids(`site_id=${site.id}`), [here.id]);
  assert.equal(await ids(`site=${site.slug}`), [here.id]);
  assert.equal(await ids(`region_id=${region.id}`), [here.id]);
  assert.equal(await ids(`region=${region.slug}`), [here.id]);
  assert.equal(await ids(`provider_network_id=${network.id}`), [there.id]);
  assert.equal(await ids(`site_id__n=${site.id}`), [there.id]);
  assert.equal(await ids(`provider=${provider.slug}&cid=${here.cid}`), [here.id]);
  // a circuit's q searches its terminations' cross-connect IDs too, and a termination's q its circuit's ID (NetBox)
  await app.patch(`/api/circuits/circuit-terminations/${(await app.get(`/api/circuits/circuit-terminations/?circuit_id=${here.id}`)).results[0].id}/`, { xconnect_id: 'XC-UNIQUE-77' });
  assert.equal((await app.get('/api/circuits/circuits/?q=xc-unique-77')).results.map((c: any) => c.id), [here.id]);
  const terms = await app.get(`/api/circuits/circuit-terminations/?q=${here.cid.toUpperCase()}`);
  assert.equal(terms.results.map((t: any) => t.circuit.id), [here.id]);
});

test('providers filter by the site, region and site group of their circuits\' terminations', async () => {
  const { provider, type, region, site, network } = await fixture();
  const group = await app.post('/api/dcim/site-groups/', { name: slug('Metro'), slug: slug('metro') });
  const child = await app.post('/api/dcim/regions/', { name: slug('France'), slug: slug('france'), parent: region.id });
  const inChild = await app.post('/api/dcim/sites/', { name: slug('Lyon'), slug: slug('lyon'), region: child.id, group: group.id });
  const elsewhere = await app.post('/api/circuits/providers/', { name: slug('Elsewhere'), slug: slug('elsewhere') });
  const inNetwork = await app.post('/api/circuits/providers/', { name: slug('Cloud only'), slug: slug('cloud-only') });
  const c1 = await app.post('/api/circuits/circuits/', { cid: slug('p1'), provider: provider.id, type: type.id });
  const c2 = await app.post('/api/circuits/circuits/', { cid: slug('p2'), provider: elsewhere.id, type: type.id });
  const c3 = await app.post('/api/circuits/circuits/', { cid: slug('p3'), provider: inNetwork.id, type: type.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: c1.id, term_side: 'A', site: site.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: c2.id, term_side: 'Z', site: inChild.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: c3.id, term_side: 'A', provider_network: network.id });
  const mine = [provider.id, elsewhere.id, inNetwork.id];
  const ids = async (query: string) => (await app.get(`/api/circuits/providers/?${query}&limit=0`)).results.map((p: any) => p.id).filter((id: number) => mine.includes(id));
  assert.equal(await ids(`site_id=${site.id}`), [provider.id]);
  assert.equal(await ids(`site=${site.slug}`), [provider.id]);
  assert.equal((await ids(`site=${site.slug}&site=${inChild.slug}`)).sort(), [provider.id, elsewhere.id].sort());
  // a region includes its descendants, as in NetBox
  assert.equal((await ids(`region_id=${region.id}`)).sort(), [provider.id, elsewhere.id].sort());
  assert.equal(await ids(`region=${child.slug}`), [elsewhere.id]);
  assert.equal(await ids(`site_group_id=${group.id}`), [elsewhere.id]);
  assert.equal(await ids(`site_group=${group.slug}`), [elsewhere.id]);
  assert.equal((await ids(`site_id__n=${site.id}`)).sort(), [elsewhere.id, inNetwork.id].sort());
  const bad = await app.api('GET', '/api/circuits/providers/?site_id=abc');
  expectStatus(bad, 400);
});

test('provider accounts: account unique per provider; a name unique per provider, blank names exempt (single and bulk)', async () => {
  const { provider } = await fixture();
  const other = await app.post('/api/circuits/providers/', { name: slug('Other'), slug: slug('other') });
  const list = '/api/circuits/provider-accounts/';
  const first = await app.post(list, { provider: provider.id, account: slug('ACC'), name: 'Main' });
  // two unnamed accounts of one provider are fine: a blank name is exempt
  await app.post(list, { provider: provider.id, account: slug('ACC') });
  await app.post(list, { provider: provider.id, account: slug('ACC'), name: '' });
  const sameName = await app.api('POST', list, { provider: provider.id, account: slug('ACC'), name: 'Main' });
  expectStatus(sameName, 400);
  assert.equal(sameName.body, { non_field_errors: ['The fields provider, name must make a unique set.'] });
  const sameAccount = await app.api('POST', list, { provider: provider.id, account: first.account });
  expectStatus(sameAccount, 400);
  assert.equal(sameAccount.body, { non_field_errors: ['The fields provider, account must make a unique set.'] });
  // another provider may use both
  await app.post(list, { provider: other.id, account: first.account, name: 'Main' });
  const bulk = await app.api('POST', list, [{ provider: provider.id, account: slug('ACC'), name: 'Backup' }, { provider: provider.id, account: slug('ACC'), name: 'Backup' }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body[1], sameName.body, 'the same words within one bulk write');
  assert.is((await app.get(`${list}?provider_id=${provider.id}&name=Backup`)).count, 0, 'nothing written');
  const renamed = await app.api('PATCH', `${list}${first.id}/`, { name: '' });
  expectStatus(renamed, 200);
});

test('rule: a termination attaches to a site or a provider network, exactly one (single and bulk)', async () => {
  const { provider, type, site, network } = await fixture();
  const circuit = await app.post('/api/circuits/circuits/', { cid: slug('rule'), provider: provider.id, type: type.id });
  const list = '/api/circuits/circuit-terminations/';
  const neither = await app.api('POST', list, { circuit: circuit.id, term_side: 'A' });
  expectStatus(neither, 400);
  assert.equal(neither.body, { site: ['A circuit termination needs a site or a provider network.'] });
  const both = await app.api('POST', list, { circuit: circuit.id, term_side: 'A', site: site.id, provider_network: network.id });
  expectStatus(both, 400);
  assert.equal(both.body, { provider_network: ['A circuit termination attaches to a site or to a provider network, not both.'] });
  const bulk = await app.api('POST', list, [{ circuit: circuit.id, term_side: 'A', site: site.id }, { circuit: circuit.id, term_side: 'Z' }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{}, neither.body], 'the same words in a bulk write; nothing written');
  assert.is((await app.get(`${list}?circuit_id=${circuit.id}`)).count, 0);
  const a = await app.post(list, { circuit: circuit.id, term_side: 'A', site: site.id });
  const z = await app.post(list, { circuit: circuit.id, term_side: 'Z', provider_network: network.id });
  // moving from a site to a network means clearing the site
  expectStatus(await app.api('PATCH', `${list}${a.id}/`, { provider_network: network.id }), 400);
  const moved = await app.patch(`${list}${a.id}/`, { provider_network: network.id, site: null });
  assert.is(moved.provider_network.id, network.id);
  const side = await app.api('POST', list, { circuit: circuit.id, term_side: 'Z', site: site.id });
  expectStatus(side, 400, 'one termination per side');
  const wrong = await app.api('POST', list, { circuit: circuit.id, term_side: 'B', site: site.id });
  expectStatus(wrong, 400);
  assert.ok(wrong.body.term_side, JSON.stringify(wrong.body));
  assert.ok(z.id);
});

test('rule: a circuit\'s provider account belongs to its provider (single and bulk)', async () => {
  const { provider, type } = await fixture();
  const other = await app.post('/api/circuits/providers/', { name: slug('Other'), slug: slug('other') });
  const mine = await app.post('/api/circuits/provider-accounts/', { provider: provider.id, account: slug('ACC'), name: 'Main' });
  const theirs = await app.post('/api/circuits/provider-accounts/', { provider: other.id, account: slug('ACC') });
  assert.is(mine.display, `${mine.account} (Main)`);
  assert.is(theirs.display, theirs.account);
  const message = { provider_account: ['This account belongs to another provider than the circuit\'s.'] };
  const bad = await app.api('POST', '/api/circuits/circuits/', { cid: slug('acc'), provider: provider.id, provider_account: theirs.id, type: type.id });
  expectStatus(bad, 400);
  assert.equal(bad.body, message);
  const bulk = await app.api('POST', '/api/circuits/circuits/', [{ cid: slug('acc'), provider: provider.id, provider_account: mine.id, type: type.id }, { cid: slug('acc'), provider: provider.id, provider_account: theirs.id, type: type.id }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{}, message]);
  const ok = await app.post('/api/circuits/circuits/', { cid: slug('acc'), provider: provider.id, provider_account: mine.id, type: type.id });
  assert.is(ok.provider_account.id, mine.id);
  expectStatus(await app.api('PATCH', `/api/circuits/circuits/${ok.id}/`, { provider: other.id }), 400, 'changing the provider alone');
  const moved = await app.patch(`/api/circuits/circuits/${ok.id}/`, { provider: other.id, provider_account: theirs.id });
  assert.is(moved.provider.id, other.id);
  // (provider, cid) is unique
  expectStatus(await app.api('POST', '/api/circuits/circuits/', { cid: ok.cid, provider: other.id, type: type.id }), 400);
});

test('providers, types and terminations refuse deletes their circuits depend on', async () => {
  const { provider, type, site, network } = await fixture();
  const circuit = await app.post('/api/circuits/circuits/', { cid: slug('keep'), provider: provider.id, type: type.id });
  await app.post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id });
  expectStatus(await app.api('DELETE', `/api/circuits/providers/${provider.id}/`), 409);
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 409);
  expectStatus(await app.api('DELETE', `/api/circuits/circuits/${circuit.id}/`), 204);
  assert.is((await app.get(`/api/circuits/circuit-terminations/?site_id=${site.id}`)).count, 0, 'terminations go with their circuit');
  expectStatus(await app.api('DELETE', `/api/circuits/providers/${provider.id}/`), 409, 'its provider network still depends on it');
  expectStatus(await app.api('DELETE', `/api/circuits/provider-networks/${network.id}/`), 204);
  expectStatus(await app.api('DELETE', `/api/circuits/providers/${provider.id}/`), 204);
});

test('/api/circuits/ lists the circuit endpoints', async () => {
  const root = await app.get('/api/circuits/');
  assert.equal(Object.keys(root), ['circuit-terminations', 'circuit-types', 'circuits', 'provider-accounts', 'provider-networks', 'providers']);
  assert.is(root.providers, `${app.url}/api/circuits/providers/`);
});

test.run();
