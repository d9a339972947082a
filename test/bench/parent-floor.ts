/**
 * The physical floor of `GET /api/ipam/ip-addresses/?parent=<network>&limit=<n>`: one query for the
 * page in the address ordering index's order (the address with its interface and that interface's
 * device, VRF and tenant joined), one count of the matches (exact up to 100,001), one tags query,
 * JSON.stringify.
 * On PostgreSQL the three run at once on a pool, as the service runs its page and count. The page's
 * shape is the API's (nested interface with its device, choices as value and label); the floor
 * leaves out what the bench's data does not have (NAT, custom fields), so it does less, never more.
 * It reads only parents whose length is at least every address's mask in them (the bench's /8 over
 * its /8 addresses): an index range, the cheapest case of the service's parent order.
 * This is a bench fixture, so it names tables; the runtime never does.
 */
import { parseNetwork } from '../../runtime/core/ipnet.js';
import { choiceSet } from '../../runtime/data/registry.js';

type Row = Record<string, any>;

/** The page's query: `$1` the family, `$2` and `$3` the parent's first and last address, `$4` its length, `$5` the limit. */
const PAGE = `
  select a.id, a.family, a.address, a.status, a.role, a.assigned_object_type, a.assigned_object_id, a.dns_name, a.description,
    a.comments, a.created, a.last_updated, v.id as v_id, v.name as v_name, te.id as te_id, te.name as te_name, te.slug as te_slug,
    i.id as i_id, i.name as i_name, i.cable_id as i_cable, d.id as d_id, d.name as d_name
  from ipam_ipaddress a
    left join ipam_vrf v on v.id = a.vrf_id
    left join tenancy_tenant te on te.id = a.tenant_id
    left join dcim_interface i on a.assigned_object_type = 'dcim.interface' and i.id = a.assigned_object_id
    left join dcim_device d on d.id = i.device_id
  where a.family = $1 and (a.address_first, a.address_length) >= ($2, $4) and a.address_first <= $3
    and a.address_host >= $2 and a.address_host <= $3
  order by a.family, a.address_first, a.address_length, a.address_host, a.id limit $5`;
/**
 * Counted as the service counts at least: exactly up to COUNT_EXACT_LIMIT's default + 1 rows (past
 * that the service estimates; at the bench's scale 1,000,000 addresses match and an uncapped count
 * took the floor 171 ms).
 */
const COUNT = 'select count(*) as n from (select 1 from ipam_ipaddress where family = $1 and address_host >= $2 and address_host <= $3 limit 100001) c';
const TAGS = `select ti.object_id, tg.id, tg.name, tg.slug, tg.color from extras_taggeditem ti join extras_tag tg on tg.id = ti.tag_id
  where ti.object_type = 'ipam.ipaddress' and ti.object_id in (select id from (${PAGE}) p) order by tg.name`;

/** The parameters of the three queries, or null when the request is not a parent page the floor reads. */
export function parentQuery(url: URL): unknown[] | null {
  const network = parseNetwork(url.searchParams.get('parent') ?? '');
  if (!network) return null;
  return [network.family, network.first, network.last, network.length, Number(url.searchParams.get('limit') ?? 50)];
}

/** A choice set's labels by value, as the schema gives them. */
const labels = (name: string) => new Map<unknown, string>(choiceSet(name).choices.map((c) => [c.value, c.label]));
const FAMILY = labels('ip-family');
const STATUS = labels('ip-address-status');
const ROLE = labels('ip-address-role');

export function renderParentPage(rows: Row[], count: number, tags: Row[], base: string): unknown {
  const byAddress = new Map<number, Row[]>();
  for (const t of tags) {
    const list = byAddress.get(Number(t.object_id)) ?? [];
    list.push({ id: Number(t.id), url: `${base}/api/extras/tags/${t.id}/`, display: t.name, name: t.name, slug: t.slug, color: t.color });
    byAddress.set(Number(t.object_id), list);
  }
  const results = rows.map((r) => ({
    id: Number(r.id),
    url: `${base}/api/ipam/ip-addresses/${r.id}/`,
    display: r.address,
    family: { value: Number(r.family), label: FAMILY.get(Number(r.family)) },
    address: r.address,
    vrf: r.v_id === null ? null : { id: Number(r.v_id), url: `${base}/api/ipam/vrfs/${r.v_id}/`, display: r.v_name, name: r.v_name },
    tenant: r.te_id === null ? null : { id: Number(r.te_id), url: `${base}/api/tenancy/tenants/${r.te_id}/`, display: r.te_name, name: r.te_name, slug: r.te_slug },
    status: { value: r.status, label: STATUS.get(r.status) },
    role: r.role ? { value: r.role, label: ROLE.get(r.role) } : null,
    assigned_object_type: r.assigned_object_type,
    assigned_object_id: r.assigned_object_id === null ? null : Number(r.assigned_object_id),
    assigned_object: r.i_id === null ? null : {
      id: Number(r.i_id), url: `${base}/api/dcim/interfaces/${r.i_id}/`, display: r.i_name,
      device: { id: Number(r.d_id), url: `${base}/api/dcim/devices/${r.d_id}/`, display: r.d_name, name: r.d_name, display_name: r.d_name },
      name: r.i_name, cable: r.i_cable, _occupied: r.i_cable !== null,
    },
    nat_inside: null,
    nat_outside: [],
    dns_name: r.dns_name,
    description: r.description,
    comments: r.comments,
    tags: byAddress.get(Number(r.id)) ?? [],
    custom_fields: {},
    created: r.created ? String(r.created).slice(0, 10) : null,
    last_updated: r.last_updated,
  }));
  return { count, next: count > results.length ? `${base}/api/ipam/ip-addresses/?limit=${results.length}&offset=${results.length}` : null, previous: null, results };
}

/** The queries in SQLite's spelling: `?NNN` for PostgreSQL's `$NNN` (better-sqlite3 binds those from an object: `bySqlitePosition`). */
export const sqliteParent = { PAGE: PAGE.replace(/\$(\d)/g, '?$1'), COUNT: COUNT.replace(/\$(\d)/g, '?$1'), TAGS: TAGS.replace(/\$(\d)/g, '?$1') };
export const postgresParent = { PAGE, COUNT, TAGS };

/** Positional values as better-sqlite3 binds `?1`, `?2`, …: an object keyed by position. */
export const bySqlitePosition = (values: unknown[]) => Object.fromEntries(values.map((v, i) => [i + 1, v]));
