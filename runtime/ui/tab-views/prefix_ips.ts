/**
 * A prefix's IP addresses with the free addresses between them as rows ("10.0.0.5/24 - 10.0.0.9/24
 * available") that open the IP address form with the first of them filled in, and a "first
 * available IP" action: the address the API's available-ips would hand out next.
 */
import { fromBigInt, parseNetwork, toBigInt } from '../../core/ipnet.js';
import { usableBounds } from '../../hooks/available.js';
import { getAction } from '../hook-view.js';
import { may } from '../page.js';
import { addUrl, type TabRow, type TabView } from '../tab-view.js';

export const prefixIps: TabView = {
  readsNeighbours: true,
  fields: ['address'],
  async render({ ctx, services, entry, object, other, rows, built, here, complete }) {
    const net = parseNetwork(String(object.prefix));
    const canAdd = may(ctx, other, 'add', services) && !other.definition.readOnly;
    if (!net || object.mark_utilized || !canAdd) return { rows: built };
    const family = net.family;
    const { first, last } = usableBounds(family, net.length, toBigInt(net.first), toBigInt(net.last), !!object.is_pool);
    const values = { vrf: object.vrf?.id, tenant: object.tenant?.id };
    const text = (a: bigint) => `${fromBigInt(a, family)}/${net.length}`;
    const gap = (a: bigint, b: bigint): TabRow => ({
      free: { text: a === b ? `${text(a)} available` : `${text(a)} - ${text(b)} available (${b - a + 1n} addresses)`, url: addUrl(other, { address: text(a), ...values }, here) },
    });
    const out: TabRow[] = [];
    let next = first;
    built.forEach((row, i) => {
      const host = parseNetwork(String(rows[i].address));
      const at = host ? toBigInt(host.host) : next;
      if (at > next && next <= last) out.push(gap(next, (at - 1n < last ? at - 1n : last)));
      if (at >= next) next = at + 1n;
      out.push(row);
    });
    // Past the last listed address only when every address is listed.
    if (complete && next <= last) out.push(gap(next, last));
    const firstFree = await getAction(ctx, services, entry, 'available_ips', Number(object.id), new URLSearchParams({ limit: '1' }));
    const address = firstFree?.ok ? (firstFree.body as { address: string }[])[0]?.address : undefined;
    return { rows: out, actions: address ? [{ label: `Add first available IP (${address})`, url: addUrl(other, { address, ...values }, here) }] : [] };
  },
};
