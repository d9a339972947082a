/**
 * The IPAM catalogue through HTTP: RIRs and aggregates, IP ranges and their free addresses, ASNs
 * and ASN ranges, route targets on VRFs, FHRP groups, service templates, available VLANs,
 * nat_outside, site ASNs, and the change-log request filters every model has.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('ipam catalogue');
let app: TestApp;
let n = 0;
const uniq = (s: string) => `${s}-${++n}`;
const ids = (body: any) => body.results.map((r: any) => r.id).sort((a: number, b: number) => a - b);

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('/api/ipam/ lists every IPAM endpoint', async () => {
  const root = await app.get('/api/ipam/');
  for (const name of ['aggregates', 'asn-ranges', 'asns', 'fhrp-group-assignments', 'fhrp-groups', 'ip-addresses', 'ip-ranges', 'prefixes', 'rirs', 'roles', 'route-targets', 'service-templates', 'services', 'vlan-groups', 'vlans', 'vrfs']) {
    assert.is(root[name], `${app.url}/api/ipam/${name}/`, name);
  }
});

test('aggregates: within a RIR, never overlapping; prefix filters; aggregate_count', async () => {
  const rir = await app.post('/api/ipam/rirs/', { name: 'RFC 1918', slug: 'rfc1918', is_private: true });
  const agg = await app.post('/api/ipam/aggregates/', { prefix: '10.0.0.0/8', rir: rir.id, date_added: '2024-01-02' });
  assert.is(agg.display, '10.0.0.0/8');
  assert.equal(agg.family, { value: 4, label: 'IPv4' });
  const inside = await app.api('POST', '/api/ipam/aggregates/', { prefix: '10.1.0.0/16', rir: rir.id });
  expectStatus(inside, 400);
  assert.match(inside.body.prefix[0], /covered by the aggregate 10\.0\.0\.0\/8/);
  const around = await app.api('POST', '/api/ipam/aggregates/', [{ prefix: '10.0.0.0/7', rir: rir.id }]);
  expectStatus(around, 400);
  assert.match(around.body[0].prefix[0], /covers the existing aggregate/);
  const v6 = await app.post('/api/ipam/aggregates/', { prefix: '2001:db8::/32', rir: { slug: 'rfc1918' } });
  assert.equal(ids(await app.get('/api/ipam/aggregates/?contains=10.2.3.4')), [agg.id]);
  assert.equal(ids(await app.get('/api/ipam/aggregates/?within_include=2001:db8::/16')), [v6.id]);
  assert.equal(ids(await app.get('/api/ipam/aggregates/?family=6')), [v6.id]);
  assert.equal(ids(await app.get('/api/ipam/aggregates/?rir=rfc1918&date_added__gte=2024-01-01')), [agg.id]);
  assert.equal(ids(await app.get('/api/ipam/aggregates/?q=10.0.0.0/8')), [agg.id]);
  const brief = await app.get(`/api/ipam/rirs/${rir.id}/?brief=1`);
  assert.equal(brief, { id: rir.id, url: `${app.url}/api/ipam/rirs/${rir.id}/`, display: 'RFC 1918', name: 'RFC 1918', slug: 'rfc1918', aggregate_count: 2 });
  expectStatus(await app.api('PATCH', `/api/ipam/aggregates/${agg.id}/`, { prefix: '10.0.0.0/9' }), 200, 'moving an aggregate does not collide with itself');
});

test('IP ranges: size, display, rules, filters, available IPs', async () => {
  const vrf = await createObject(app, model('VRF'));
  const range = await app.post('/api/ipam/ip-ranges/', { start_address: '192.0.2.10/24', end_address: '192.0.2.20/24', vrf: vrf.id });
  assert.is(range.size, 11);
  assert.is(range.display, '192.0.2.10-20/24');
  assert.is(range.mark_utilized, false);
  const bad = async (body: object, field: string, pattern: RegExp) => {
    const reply = await app.api('POST', '/api/ipam/ip-ranges/', body);
    expectStatus(reply, 400, JSON.stringify(body));
    assert.match(reply.body[field].join(' '), pattern);
  };
  await bad({ start_address: '192.0.2.30/24', end_address: '2001:db8::1/64' }, 'end_address', /versions/);
  await bad({ start_address: '192.0.2.30/24', end_address: '192.0.2.40/25' }, 'end_address', /masks/);
  await bad({ start_address: '192.0.2.40/24', end_address: '192.0.2.30/24' }, 'end_address', /higher/);
  // NetBox's IPRange.clean() raises the overlap and the size limit without a field: __all__ in the REST API
  await bad({ start_address: '192.0.2.15/24', end_address: '192.0.2.25/24', vrf: vrf.id }, '__all__', /overlap/);
  await bad({ start_address: '10.0.0.1/8', end_address: '2001:db8::1/64' }, 'end_address', /versions/);
  await bad({ start_address: '2001:db8::1/32', end_address: '2001:db8:1::1/32' }, '__all__', /largest supported size/);
  // the same addresses in the global table are another space
  const global = await app.post('/api/ipam/ip-ranges/', { start_address: '192.0.2.15/24', end_address: '192.0.2.25/24' });
  const v6 = await app.post('/api/ipam/ip-ranges/', { start_address: '2001:db8::10/64', end_address: '2001:db8::1f/64' });
  assert.is(v6.size, 16);
  assert.is(v6.display, '2001:db8::10-1f/64');
  assert.equal(ids(await app.get('/api/ipam/ip-ranges/?contains=192.0.2.12')), [range.id]);
  assert.equal(ids(await app.get('/api/ipam/ip-ranges/?parent=192.0.2.0/24')), [range.id, global.id]);
  assert.equal(ids(await app.get(`/api/ipam/ip-ranges/?parent=192.0.2.0/24&vrf_id=${vrf.id}`)), [range.id]);
  assert.equal(ids(await app.get('/api/ipam/ip-ranges/?start_address=2001:db8::10/64')), [v6.id]);

  await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.11/24', vrf: vrf.id });
  const free = await app.get(`/api/ipam/ip-ranges/${range.id}/available-ips/?limit=3`);
  assert.equal(free.map((a: any) => a.address), ['192.0.2.10/24', '192.0.2.12/24', '192.0.2.13/24']);
  assert.is(free[0].vrf.id, vrf.id);
  const one = await app.post(`/api/ipam/ip-ranges/${range.id}/available-ips/`, { description: 'first free' });
  assert.is(one.address, '192.0.2.10/24');
  assert.is(one.vrf.id, vrf.id);
  const many = await app.post(`/api/ipam/ip-ranges/${range.id}/available-ips/`, [{}, {}]);
  assert.equal(many.map((a: any) => a.address), ['192.0.2.12/24', '192.0.2.13/24']);
  const tooMany = await app.api('POST', `/api/ipam/ip-ranges/${range.id}/available-ips/`, Array.from({ length: 8 }, () => ({})));
  expectStatus(tooMany, 409);
});

test('prefix available-ips skips the addresses of IP ranges inside the prefix', async () => {
  const prefix = await app.post('/api/ipam/prefixes/', { prefix: '198.51.100.0/28' });
  await app.post('/api/ipam/ip-ranges/', { start_address: '198.51.100.2/28', end_address: '198.51.100.12/28' });
  const free = await app.get(`/api/ipam/prefixes/${prefix.id}/available-ips/`);
  assert.equal(free.map((a: any) => a.address), ['198.51.100.1/28', '198.51.100.13/28', '198.51.100.14/28']);
});

test('ASNs and ASN ranges: asdot display, available ASNs, counts, site ASNs', async () => {
  const rir = await createObject(app, model('RIR'));
  const small = await app.post('/api/ipam/asns/', { asn: 64512, rir: rir.id });
  const big = await app.post('/api/ipam/asns/', { asn: 4200000000, rir: rir.id });
  assert.is(small.display, 'AS64512');
  assert.is(big.display, 'AS4200000000 (64086.59904)');
  assert.is(big.asn, 4200000000);
  const missing = await app.api('POST', '/api/ipam/asns/', { asn: 64513 });
  expectStatus(missing, 400);
  assert.ok(missing.body.rir);
  const badRange = await app.api('POST', '/api/ipam/asn-ranges/', { name: 'x', slug: 'x', rir: rir.id, start: 65000, end: 64000 });
  expectStatus(badRange, 400);
  assert.equal(Object.keys(badRange.body), ['__all__'], 'NetBox\'s ASNRange.clean() names no field');
  assert.match(badRange.body.__all__[0], /lower/);
  const range = await app.post('/api/ipam/asn-ranges/', { name: 'Private', slug: 'private', rir: rir.id, start: 64512, end: 64515 });
  assert.is(range.asn_count, 1);
  const free = await app.get(`/api/ipam/asn-ranges/${range.id}/available-asns/`);
  assert.equal(free.map((a: any) => a.asn), [64513, 64514, 64515]);
  assert.is(free[0].rir.id, rir.id);
  const made = await app.post(`/api/ipam/asn-ranges/${range.id}/available-asns/`, [{ description: 'a' }, { description: 'b' }]);
  assert.equal(made.map((a: any) => a.asn), [64513, 64514]);
  assert.is(made[0].rir.id, rir.id);
  expectStatus(await app.api('POST', `/api/ipam/asn-ranges/${range.id}/available-asns/`, [{}, {}]), 409);
  assert.is((await app.get(`/api/ipam/asn-ranges/${range.id}/`)).asn_count, 3);

  const site = await app.post('/api/dcim/sites/', { name: uniq('AS site'), slug: uniq('as-site'), asns: [small.id, big.id] });
  assert.equal(site.asns.map((a: any) => a.display).sort(), ['AS4200000000 (64086.59904)', 'AS64512']);
  assert.equal(ids(await app.get('/api/dcim/sites/?asn=64512')), [site.id]);
  assert.equal(ids(await app.get(`/api/dcim/sites/?asn_id=${big.id}`)), [site.id]);
  assert.equal(ids(await app.get(`/api/ipam/asns/?site_id=${site.id}`)), [small.id, big.id]);
  assert.equal(ids(await app.get(`/api/ipam/asns/?site=${site.slug}&asn__gt=65535`)), [big.id]);
  assert.is((await app.get(`/api/ipam/asns/${small.id}/`)).site_count, 1);
  assert.equal(ids(await app.get('/api/ipam/asns/?q=4200000000')), [big.id], 'q matches the whole number');
  assert.equal(ids(await app.get('/api/ipam/asns/?q=420')), []);
});

test('route targets: VRF import/export targets and their filters both ways', async () => {
  const [a, b] = [await app.post('/api/ipam/route-targets/', { name: '65000:1' }), await app.post('/api/ipam/route-targets/', { name: '65000:2' })];
  const vrf = await app.post('/api/ipam/vrfs/', { name: 'blue', rd: '65000:100', import_targets: [a.id, b.id], export_targets: [{ name: '65000:1' }] });
  assert.equal(vrf.import_targets.map((t: any) => t.name), ['65000:1', '65000:2']);
  assert.equal(vrf.export_targets.map((t: any) => t.id), [a.id]);
  await createObject(app, model('VRF'));
  assert.equal(ids(await app.get(`/api/ipam/vrfs/?import_target_id=${b.id}`)), [vrf.id]);
  assert.equal(ids(await app.get('/api/ipam/vrfs/?export_target=65000:1')), [vrf.id]);
  assert.equal(ids(await app.get('/api/ipam/vrfs/?export_target=65000:2')), []);
  assert.equal(ids(await app.get(`/api/ipam/route-targets/?importing_vrf_id=${vrf.id}`)), [a.id, b.id]);
  assert.equal(ids(await app.get('/api/ipam/route-targets/?exporting_vrf=65000:100')), [a.id]);
  const dup = await app.api('POST', '/api/ipam/route-targets/', { name: '65000:1' });
  expectStatus(dup, 400);
  assert.ok(dup.body.name);
});

test('FHRP groups: assignments to interfaces, virtual IPs, counts and filters', async () => {
  const group = await app.post('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 10, auth_type: 'md5', auth_key: 'secret' });
  assert.is(group.display, 'VRRPv2: 10');
  assert.equal(group.auth_type, { value: 'md5', label: 'MD5' });
  const named = await app.post('/api/ipam/fhrp-groups/', { name: 'edge', protocol: 'hsrp', group_id: 1 });
  assert.is(named.display, 'edge HSRP: 1');
  const iface = await createObject(app, model('Interface'));
  const assignment = await app.post('/api/ipam/fhrp-group-assignments/', { group: group.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 200 });
  assert.is(assignment.interface.id, iface.id);
  assert.is(assignment.group.id, group.id);
  assert.is(assignment.display, `${iface.name}: VRRPv2: 10 (200)`, 'NetBox: interface, group, priority');
  const again = await app.api('POST', '/api/ipam/fhrp-group-assignments/', { group: group.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 100 });
  expectStatus(again, 400);
  assert.is((await app.get(`/api/dcim/interfaces/${iface.id}/`)).count_fhrp_groups, 1);
  assert.equal(ids(await app.get(`/api/ipam/fhrp-group-assignments/?device_id=${iface.device.id}`)), [assignment.id]);
  // two VIPs on the group, the same address as another group's: shared roles
  const vip = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.1/24', role: 'vrrp', assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: group.id });
  await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.1/24', role: 'hsrp', assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: named.id });
  assert.is(vip.assigned_object.id, group.id);
  assert.equal((await app.get(`/api/ipam/fhrp-groups/${group.id}/`)).ip_addresses.map((a: any) => a.id), [vip.id]);
  // NetBox's str(): the first virtual address follows, wherever the group is shown
  const second = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.9/24', role: 'vrrp', assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: group.id });
  assert.is((await app.get(`/api/ipam/fhrp-groups/${group.id}/`)).display, 'VRRPv2: 10 (192.0.2.1/24)');
  assert.is((await app.get(`/api/ipam/fhrp-groups/?id=${named.id}`)).results[0].display, 'edge HSRP: 1 (192.0.2.1/24)');
  assert.is((await app.get(`/api/ipam/fhrp-group-assignments/${assignment.id}/`)).display, `${iface.name}: VRRPv2: 10 (192.0.2.1/24) (200)`);
  assert.is((await app.get(`/api/ipam/ip-addresses/${vip.id}/`)).assigned_object.display, 'VRRPv2: 10 (192.0.2.1/24)');
  assert.equal(ids(await app.get(`/api/ipam/ip-addresses/?fhrpgroup_id=${group.id}`)), [vip.id, second.id]);
  assert.equal(ids(await app.get('/api/ipam/fhrp-groups/?protocol=hsrp')), [named.id]);
  // deleting the group removes its assignments and its virtual addresses
  expectStatus(await app.api('DELETE', `/api/ipam/fhrp-groups/${group.id}/`), 204);
  expectStatus(await app.api('GET', `/api/ipam/ip-addresses/${vip.id}/`), 404, 'a virtual address goes with its group, as in NetBox 3.7:');
  assert.is((await app.get(`/api/dcim/interfaces/${iface.id}/`)).count_fhrp_groups, 0);
});

test('service templates and services: ports, ?port=, ?ipaddress_id=', async () => {
  const t = await app.post('/api/ipam/service-templates/', { name: 'web', protocol: 'tcp', ports: [80, 443] });
  await app.post('/api/ipam/service-templates/', { name: 'dns', protocol: 'udp', ports: [53] });
  assert.equal(ids(await app.get('/api/ipam/service-templates/?port=443')), [t.id]);
  assert.equal(ids(await app.get('/api/ipam/service-templates/?port=44')), []);
  const bad = await app.api('POST', '/api/ipam/service-templates/', { name: 'bad', protocol: 'tcp', ports: [0] });
  expectStatus(bad, 400);
  assert.ok(bad.body.ports);
  const device = await createObject(app, model('Device'));
  const ip = await app.post('/api/ipam/ip-addresses/', { address: '198.18.0.1/24' });
  const svc = await app.post('/api/ipam/services/', { device: device.id, name: 'https', protocol: 'tcp', ports: [443], ipaddresses: [ip.id] });
  const web = await app.post('/api/ipam/services/', { device: device.id, name: 'web', protocol: 'tcp', ports: [443, 81, 80, 82] });
  assert.is(web.display, 'web (TCP/80-82, 443)');
  assert.is(t.display, 'web', 'a template shows its name');
  assert.equal(ids(await app.get(`/api/ipam/services/?ipaddress_id=${ip.id}`)), [svc.id]);
  assert.equal(ids(await app.get('/api/ipam/services/?ipaddress=198.18.0.1/24&port=443')), [svc.id]);
});

test('VLAN groups: available VLANs handed out lowest first', async () => {
  const group = await app.post('/api/ipam/vlan-groups/', { name: uniq('pool'), slug: uniq('pool'), min_vid: 10, max_vid: 13 });
  await app.post('/api/ipam/vlans/', { name: 'ten', vid: 10, group: group.id });
  const free = await app.get(`/api/ipam/vlan-groups/${group.id}/available-vlans/`);
  assert.equal(free.map((v: any) => v.vid), [11, 12, 13]);
  assert.is(free[0].group.id, group.id);
  const noName = await app.api('POST', `/api/ipam/vlan-groups/${group.id}/available-vlans/`, {});
  expectStatus(noName, 400);
  assert.ok(noName.body.name);
  const made = await app.post(`/api/ipam/vlan-groups/${group.id}/available-vlans/`, [{ name: 'a' }, { name: 'b' }]);
  assert.equal(made.map((v: any) => v.vid), [11, 12]);
  assert.is(made[0].group.id, group.id);
  expectStatus(await app.api('POST', `/api/ipam/vlan-groups/${group.id}/available-vlans/`, [{ name: 'c' }, { name: 'd' }]), 409);
});

test('IP addresses: nat_outside lists the addresses NATed to this one', async () => {
  const inside = await app.post('/api/ipam/ip-addresses/', { address: '10.99.0.1/24' });
  const [o1, o2] = [await app.post('/api/ipam/ip-addresses/', { address: '198.19.0.1/24', nat_inside: inside.id }), await app.post('/api/ipam/ip-addresses/', { address: '198.19.0.2/24', nat_inside: inside.id })];
  const shown = await app.get(`/api/ipam/ip-addresses/${inside.id}/`);
  assert.equal(shown.nat_outside.map((a: any) => a.id), [o1.id, o2.id]);
  assert.is(shown.nat_outside[0].address, '198.19.0.1/24');
  assert.equal((await app.get(`/api/ipam/ip-addresses/${o1.id}/`)).nat_outside, []);
});

test('created_by_request, updated_by_request, modified_by_request find objects through the change log', async () => {
  const created = await app.api('POST', '/api/ipam/rirs/', [{ name: uniq('R'), slug: uniq('r') }, { name: uniq('R'), slug: uniq('r') }]);
  expectStatus(created, 201);
  const createId = created.headers.get('x-request-id')!;
  const other = await app.post('/api/ipam/rirs/', { name: uniq('R'), slug: uniq('r') });
  const updated = await app.api('PATCH', `/api/ipam/rirs/${other.id}/`, { description: 'changed' });
  const updateId = updated.headers.get('x-request-id')!;
  const made = created.body.map((r: any) => r.id).sort((a: number, b: number) => a - b);
  assert.equal(ids(await app.get(`/api/ipam/rirs/?created_by_request=${createId}`)), made);
  assert.equal(ids(await app.get(`/api/ipam/rirs/?updated_by_request=${createId}`)), []);
  assert.equal(ids(await app.get(`/api/ipam/rirs/?updated_by_request=${updateId}`)), [other.id]);
  assert.equal(ids(await app.get(`/api/ipam/rirs/?modified_by_request=${createId}&modified_by_request=${updateId}`)), [...made, other.id]);
  // on another model too: the filter is generic
  assert.equal(ids(await app.get(`/api/dcim/sites/?created_by_request=${createId}`)), []);
  const bad = await app.api('GET', '/api/ipam/rirs/?created_by_request=nope');
  expectStatus(bad, 400);
  assert.ok(bad.body.created_by_request);
});

test('the OpenAPI document describes the new endpoints and filters', async () => {
  const doc = await app.get('/api/schema/');
  for (const path of ['/api/ipam/rirs/', '/api/ipam/aggregates/', '/api/ipam/ip-ranges/{id}/available-ips/', '/api/ipam/asn-ranges/{id}/available-asns/', '/api/ipam/vlan-groups/{id}/available-vlans/', '/api/ipam/fhrp-group-assignments/', '/api/ipam/service-templates/', '/api/ipam/route-targets/']) {
    assert.ok(doc.paths[path], path);
  }
  const params = doc.paths['/api/dcim/sites/'].get.parameters.map((p: any) => p.name);
  for (const name of ['created_by_request', 'updated_by_request', 'modified_by_request', 'asn', 'asn_id']) assert.ok(params.includes(name), name);
});

test.run();
