/**
 * Part of `npm run bench:ui`: a prefix's child prefixes tab with 1,000 children (every other /28 of
 * a /16 used, so free blocks sit between them; a tab lists 100 rows a page: its first and last
 * pages, and a page of 500), a /24's IP addresses tab with 200 addresses and
 * their gaps, a VLAN group's tab with 500 VLANs and its free VIDs, an aggregate's page and its
 * prefixes tab over the same 1,000 /28s, an IP address's page (parent prefixes, duplicates) and an
 * IP range's page (utilization of 100 addresses), rendered server-side and timed
 * by their Server-Timing header over HTTP. SQLite by default, PostgreSQL when DATABASE_URL is set.
 * Prints figures only; no assertions. ONLY=<regex> times only the paths whose description matches.
 */
import { uiBench } from './ui-bench.js';

const RUNS = Number(process.env.RUNS ?? 50);
const ONLY = new RegExp(process.env.ONLY ?? '');

const bench = await uiBench('ipam');
const { call } = bench;

try {
  const parent = await call('POST', '/api/ipam/prefixes/', { prefix: '10.0.0.0/16', status: 'container' });
  // every other /28: 10.0.0.0/28, 10.0.0.32/28, ... (1,000 of them)
  const children = Array.from({ length: 1000 }, (_, i) => ({ prefix: `10.0.${Math.floor((i * 32) / 256)}.${(i * 32) % 256}/28` }));
  for (let i = 0; i < children.length; i += 250) await call('POST', '/api/ipam/prefixes/', children.slice(i, i + 250));
  const lan = await call('POST', '/api/ipam/prefixes/', { prefix: '10.1.0.0/24' });
  const ips = await call('POST', '/api/ipam/ip-addresses/', Array.from({ length: 200 }, (_, i) => ({ address: `10.1.0.${i + 1}/24` })).filter((_, i) => i % 5 !== 4));
  const group = await call('POST', '/api/ipam/vlan-groups/', { name: 'Bench', slug: 'bench' });
  await call('POST', '/api/ipam/vlans/', Array.from({ length: 500 }, (_, i) => ({ vid: 2 + i * 3, name: `v${i}`, group: group.id })));
  const rir = await call('POST', '/api/ipam/rirs/', { name: 'RFC 1918', slug: 'rfc-1918', is_private: true });
  const aggregate = await call('POST', '/api/ipam/aggregates/', { prefix: '10.0.0.0/15', rir: rir.id });
  const range = await call('POST', '/api/ipam/ip-ranges/', { start_address: '10.1.0.100/24', end_address: '10.1.0.199/24' });

  const { report } = await bench.login();
  for (const [what, path] of [
    ['child prefixes tab, 1,000 children and their free blocks (page 1 of 100 rows)', `/ipam/prefixes/${parent.id}/prefixes/`],
    ['child prefixes tab, 1,000 children and their free blocks (page 10, the last)', `/ipam/prefixes/${parent.id}/prefixes/?page=10`],
    ['child prefixes tab, 1,000 children and their free blocks (one page of 500)', `/ipam/prefixes/${parent.id}/prefixes/?per_page=500`],
    ['IP addresses tab, 160 addresses and their gaps', `/ipam/prefixes/${lan.id}/ip-addresses/`],
    ['VLANs tab, 500 VLANs and their free VIDs', `/ipam/vlan-groups/${group.id}/vlans/`],
    ['aggregate page, utilization over 1,002 prefixes', `/ipam/aggregates/${aggregate.id}/`],
    ['aggregate prefixes tab, 1,000 of its 1,002 prefixes listed', `/ipam/aggregates/${aggregate.id}/prefixes/`],
    ['IP address page, assignment, duplicates, parent prefixes', `/ipam/ip-addresses/${ips[0].id}/`],
    ['IP range page, utilization of 100 addresses', `/ipam/ip-ranges/${range.id}/`],
  ]) {
    if (ONLY.test(what)) await report(what, path, RUNS, 5);
  }
} finally {
  await bench.close();
}
