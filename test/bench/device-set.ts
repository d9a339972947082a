/**
 * The device set the profile and the A/B seed through the API: 1000 devices with a site, type and
 * maker, role, tenant, platform, rack and two tags each, and 10 interfaces on every device.
 */
import type { Call } from './api-call.js';

export async function seedDeviceSet(call: Call): Promise<{ devices: { id: number }[]; interfaces: { id: number }[] }> {
  const site = await call('POST', '/api/dcim/sites/', { name: 'P', slug: 'p' });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
  const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'T', slug: 't' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'R', slug: 'r' });
  const tenant = await call('POST', '/api/tenancy/tenants/', { name: 'Te', slug: 'te' });
  const platform = await call('POST', '/api/dcim/platforms/', { name: 'Pl', slug: 'pl' });
  const rack = await call('POST', '/api/dcim/racks/', { name: 'Ra', site: site.id });
  const tags = await call('POST', '/api/extras/tags/', [{ name: 'a', slug: 'a' }, { name: 'b', slug: 'b' }]);
  const devices = await call('POST', '/api/dcim/devices/', Array.from({ length: 1000 }, (_, i) => ({ name: `d${i}`, site: site.id, device_type: type.id, role: role.id, tenant: tenant.id, platform: platform.id, rack: rack.id, tags: tags.map((t: { id: number }) => t.id) })));
  const interfaces = await call('POST', '/api/dcim/interfaces/', devices.flatMap((d: { id: number }) => Array.from({ length: 10 }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  return { devices, interfaces };
}
