/**
 * VPN tunnels and crypto (/api/vpn/): tunnel groups, tunnels, their terminations on interfaces and
 * VM interfaces with an outside address, IKE and IPSec proposals, policies and profiles, with
 * NetBox 3.7's create data, brief shapes, rules and filters.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('vpn');
let app: TestApp;
const brief = async (path: string) => Object.keys(await app.get(`${path}?brief=1`)).sort();

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('/api/vpn/ lists every VPN endpoint', async () => {
  assert.equal(Object.keys(await app.get('/api/vpn/')).sort(), [
    'ike-policies', 'ike-proposals', 'ipsec-policies', 'ipsec-profiles', 'ipsec-proposals', 'l2vpn-terminations', 'l2vpns',
    'tunnel-groups', 'tunnel-terminations', 'tunnels',
  ]);
});

test('IKE and IPSec proposals, policies and profiles: create data, rules, filters, brief shapes', async () => {
  const ikeProposals = await app.post('/api/vpn/ike-proposals/', [1, 2].map((n) => ({
    name: `IKE Proposal ${n}`, authentication_method: 'certificates', encryption_algorithm: 'aes-256-cbc', authentication_algorithm: 'hmac-sha256', group: 19,
  })));
  assert.equal(ikeProposals[0].group, { value: 19, label: 'Group 19' });
  assert.equal(ikeProposals[0].authentication_method, { value: 'certificates', label: 'Certificates' });
  assert.equal(await brief(`/api/vpn/ike-proposals/${ikeProposals[0].id}/`), ['display', 'id', 'name', 'url']);
  await expectFieldError(app, 'POST', '/api/vpn/ike-proposals/', { name: 'bad', authentication_method: 'certificates', encryption_algorithm: 'aes-256-cbc', group: 3 }, 'group');

  const policy = await app.post('/api/vpn/ike-policies/', { name: 'IKE Policy 1', version: 1, mode: 'main', proposals: [ikeProposals[0].id, ikeProposals[1].id], preshared_key: 'abc' });
  assert.equal(policy.version, { value: 1, label: 'IKEv1' });
  assert.equal(policy.proposals.map((p: any) => p.id), [ikeProposals[0].id, ikeProposals[1].id]);
  assert.equal(Object.keys(policy.proposals[0]).sort(), ['display', 'id', 'name', 'url']);
  assert.is(await expectFieldError(app, 'POST', '/api/vpn/ike-policies/', { name: 'v1 without mode', version: 1 }, 'non_field_errors'), 'Mode is required for selected IKE version');
  assert.is(await expectFieldError(app, 'PATCH', `/api/vpn/ike-policies/${policy.id}/`, { version: 2 }, 'non_field_errors'), 'Mode cannot be used for selected IKE version');
  const v2 = await app.post('/api/vpn/ike-policies/', { name: 'IKE Policy 2', proposals: [ikeProposals[1].id] });
  assert.equal(v2.version, { value: 2, label: 'IKEv2' });
  assert.is(v2.mode, null);
  const names = async (path: string, query: string) => (await app.get(`${path}?${query}`)).results.map((o: any) => o.name);
  assert.equal(await names('/api/vpn/ike-policies/', `proposal_id=${ikeProposals[0].id}`), ['IKE Policy 1']);
  assert.equal(await names('/api/vpn/ike-policies/', 'proposal=IKE Proposal 2'), ['IKE Policy 1', 'IKE Policy 2']);
  assert.equal(await names('/api/vpn/ike-policies/', 'version=2'), ['IKE Policy 2']);
  assert.equal(await names('/api/vpn/ike-proposals/', `ike_policy_id=${v2.id}`), ['IKE Proposal 2']);
  assert.equal(await names('/api/vpn/ike-proposals/', 'ike_policy=IKE Policy 1'), ['IKE Proposal 1', 'IKE Proposal 2']);

  const ipsecProposal = await app.post('/api/vpn/ipsec-proposals/', { name: 'IPSec Proposal 1', encryption_algorithm: 'aes-256-cbc', authentication_algorithm: 'hmac-sha256', sa_lifetime_seconds: 3600 });
  assert.is(await expectFieldError(app, 'POST', '/api/vpn/ipsec-proposals/', { name: 'none' }, 'non_field_errors'), 'Encryption and/or authentication algorithm must be defined');
  await app.post('/api/vpn/ipsec-proposals/', { name: 'IPSec Proposal 2', authentication_algorithm: 'hmac-md5' });
  assert.equal(await names('/api/vpn/ipsec-proposals/', 'sa_lifetime_seconds__gte=3000'), ['IPSec Proposal 1']);
  const ipsecPolicy = await app.post('/api/vpn/ipsec-policies/', { name: 'IPSec Policy 1', pfs_group: 16, proposals: [ipsecProposal.id] });
  assert.equal(ipsecPolicy.pfs_group, { value: 16, label: 'Group 16' });
  assert.is((await app.post('/api/vpn/ipsec-policies/', { name: 'IPSec Policy 2' })).pfs_group, null);
  assert.equal(await names('/api/vpn/ipsec-policies/', `proposal_id=${ipsecProposal.id}`), ['IPSec Policy 1']);
  assert.equal(await names('/api/vpn/ipsec-policies/', 'pfs_group=16'), ['IPSec Policy 1']);

  const profile = await app.post('/api/vpn/ipsec-profiles/', { name: 'IPSec Profile 1', mode: 'esp', ike_policy: policy.id, ipsec_policy: ipsecPolicy.id });
  assert.equal(profile.mode, { value: 'esp', label: 'ESP' });
  assert.equal(await brief(`/api/vpn/ipsec-profiles/${profile.id}/`), ['display', 'id', 'name', 'url']);
  assert.equal(await names('/api/vpn/ipsec-profiles/', 'ike_policy=IKE Policy 1'), ['IPSec Profile 1']);
  assert.equal(await names('/api/vpn/ipsec-profiles/', `ipsec_policy_id=${ipsecPolicy.id}`), ['IPSec Profile 1']);
  assert.ok((await app.api('DELETE', `/api/vpn/ike-policies/${policy.id}/`)).status >= 400, 'a policy in use by a profile is protected');
});

test('tunnels and their terminations on interfaces and VM interfaces', async () => {
  const group = await app.post('/api/vpn/tunnel-groups/', { name: 'Tunnel Group 4', slug: 'tunnel-group-4' });
  assert.equal(await brief(`/api/vpn/tunnel-groups/${group.id}/`), ['display', 'id', 'name', 'slug', 'tunnel_count', 'url']);
  const tunnels = await app.post('/api/vpn/tunnels/', [
    { name: 'Tunnel 4', status: 'disabled', group: group.id, encapsulation: 'gre' },
    { name: 'Tunnel 5', status: 'disabled', group: group.id, encapsulation: 'gre', tunnel_id: 55 },
    { name: 'Tunnel 6', encapsulation: 'ipsec-tunnel' },
  ]);
  assert.equal(tunnels[2].status, { value: 'active', label: 'Active' });
  assert.equal(tunnels[0].encapsulation, { value: 'gre', label: 'GRE' });
  assert.equal(await brief(`/api/vpn/tunnels/${tunnels[0].id}/`), ['display', 'id', 'name', 'url']);
  assert.is((await app.get(`/api/vpn/tunnel-groups/${group.id}/`)).tunnel_count, 2);
  await expectFieldError(app, 'POST', '/api/vpn/tunnels/', { name: 'Tunnel 4', encapsulation: 'gre' }, 'name');
  const names = async (query: string) => (await app.get(`/api/vpn/tunnels/?${query}`)).results.map((o: any) => o.name);
  assert.equal(await names('group=tunnel-group-4&tunnel_id=55'), ['Tunnel 5']);
  assert.equal(await names('encapsulation=ipsec-tunnel'), ['Tunnel 6']);

  const device = await createObject(app, model('Device'));
  const [i1, i2] = [await app.post('/api/dcim/interfaces/', { device: device.id, name: 'tun0', type: 'virtual' }), await app.post('/api/dcim/interfaces/', { device: device.id, name: 'tun1', type: 'virtual' })];
  const vmIface = await createObject(app, model('VMInterface'));
  const outside = await app.post('/api/ipam/ip-addresses/', { address: '203.0.113.1/32' });
  const TERMS = '/api/vpn/tunnel-terminations/';
  const t1 = await app.post(TERMS, { tunnel: tunnels[0].id, role: 'hub', termination_type: 'dcim.interface', termination_id: i1.id, outside_ip: outside.id });
  assert.is(t1.display, `Tunnel 4: Termination ${t1.id}`);
  assert.equal(t1.role, { value: 'hub', label: 'Hub' });
  assert.is(t1.termination.id, i1.id);
  assert.is(t1.outside_ip.id, outside.id);
  assert.equal(await brief(`${TERMS}${t1.id}/`), ['display', 'id', 'url']);
  const [t2] = await app.post(TERMS, [
    { tunnel: tunnels[0].id, termination_type: 'virtualization.vminterface', termination_id: vmIface.id },
    { tunnel: tunnels[1].id, termination_type: 'dcim.interface', termination_id: i2.id },
  ]);
  assert.equal(t2.role, { value: 'peer', label: 'Peer' });
  assert.is(await expectFieldError(app, 'POST', TERMS, { tunnel: tunnels[1].id, termination_type: 'dcim.interface', termination_id: i1.id }, 'termination'), 'tun0 is already attached to a tunnel (Tunnel 4).');
  const fresh = await createObject(app, model('Interface'));
  await expectFieldError(app, 'POST', TERMS, [
    { tunnel: tunnels[2].id, termination_type: 'dcim.interface', termination_id: fresh.id },
    { tunnel: tunnels[2].id, termination_type: 'dcim.interface', termination_id: fresh.id },
  ], 'termination');
  const ids = async (query: string) => (await app.get(`${TERMS}?${query}`)).results.map((o: any) => o.id);
  assert.equal(await ids(`tunnel_id=${tunnels[0].id}`), [t1.id, t2.id]);
  assert.equal(await ids('tunnel=Tunnel 4&role=hub'), [t1.id]);
  assert.equal(await ids(`interface_id=${i1.id}`), [t1.id]);
  assert.equal(await ids(`interface=tun0&tunnel_id=${tunnels[0].id}`), [t1.id]);
  assert.equal(await ids(`vminterface_id=${vmIface.id}`), [t2.id]);
  assert.equal(await ids(`termination_type=virtualization.vminterface&tunnel_id=${tunnels[0].id}`), [t2.id]);
  assert.equal(await ids(`outside_ip_id=${outside.id}`), [t1.id]);
  assert.ok((await app.api('DELETE', `/api/ipam/ip-addresses/${outside.id}/`)).status >= 400, 'an outside address in use is protected');
  // a termination goes with its tunnel and with its interface
  expectStatus(await app.api('DELETE', `/api/dcim/interfaces/${i2.id}/`), 204);
  assert.equal(await ids(`tunnel_id=${tunnels[1].id}`), []);
  expectStatus(await app.api('DELETE', `/api/vpn/tunnels/${tunnels[0].id}/`), 204);
  expectStatus(await app.api('GET', `${TERMS}${t1.id}/`), 404);
});

test.run();
