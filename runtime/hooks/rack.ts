/**
 * Racks (the location is in the rack's site: `same: site` in the schema): dimensions and weights
 * need their unit; the rack must stay tall enough (and start low enough) for the devices mounted in it. Also the elevation:
 * `racks/{id}/elevation/`, the rack's units with the device in each (JSON, NetBox's shape,
 * paginated), or a simple SVG drawing with `render=svg`.
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { choiceSet, model } from '../data/registry.js';
import { renderRows } from '../data/serialize.js';
import { errors } from '../core/errors.js';
import { loadRacks, steps, units } from './rack_space.js';

export const rack: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    for (const item of items) {
      if ((pick(item, 'outer_width') != null || pick(item, 'outer_depth') != null) && !pick(item, 'outer_unit')) item.errors.add('outer_unit', 'Must specify a unit when setting an outer width/depth');
      if ((pick(item, 'max_weight') != null || pick(item, 'weight') != null) && !pick(item, 'weight_unit')) item.errors.add('weight_unit', 'Must specify a unit when setting a weight or maximum weight');
    }
    const resized = items.filter((i) => i.existing && (i.values.u_height !== undefined || i.values.starting_unit !== undefined));
    const spaces = await loadRacks(db, resized.map((i) => i.id!));
    for (const item of resized) {
      const devices = spaces.get(item.id!)?.devices ?? [];
      if (!devices.length) continue;
      const top = Math.max(...devices.map((d) => steps(d.position, d.height).pop() ?? d.position));
      const lowest = Math.min(...devices.map((d) => d.position));
      const start = Number(pick(item, 'starting_unit') ?? 1);
      const needed = Math.ceil(top + 0.5 - start);
      if (Number(pick(item, 'u_height')) < needed) item.errors.add('u_height', `Rack must be at least ${needed}U tall to house currently installed devices.`);
      if (start > lowest) item.errors.add('starting_unit', `Rack unit numbering must begin at ${Math.floor(lowest)} or less to house currently installed devices.`);
    }
  },
  actions: {
    async rack_elevation({ db, row, query, baseUrl }) {
      const face = query.get('face') ?? 'front';
      const faces = choiceSet('device-face').choices;
      const faceChoice = faces.find((c) => c.value === face);
      if (!faceChoice) throw errors.validation({ face: [`"${face}" is not a valid choice.`] });
      const exclude = (query.getAll('exclude') ?? []).filter((v) => /^\d+$/.test(v)).map(Number);
      const space = (await loadRacks(db, [Number(row.id)])).get(Number(row.id))!;
      const byUnit = new Map<number, number>();
      for (const d of space.devices) {
        if (exclude.includes(d.id) || !(d.face === face || d.fullDepth)) continue;
        for (const u of steps(d.position, d.height)) if (!byUnit.has(u)) byUnit.set(u, d.id);
      }
      const shown = [...new Set(byUnit.values())];
      const deviceEntry = model('Device');
      const rendered = shown.length ? await renderRows(deviceEntry, await db(deviceEntry.definition.table).whereIn('id', shown), { db, baseUrl, brief: true }) : [];
      const nested = new Map(rendered.map((d) => [Number(d.id), d]));
      const q = query.get('q');
      const all = units(row).map((u) => ({ id: u, name: `U${u}`, face: { value: faceChoice.value, label: faceChoice.label }, device: nested.get(byUnit.get(u) ?? byUnit.get(u + 0.5) ?? -1) ?? null, occupied: byUnit.has(u) || byUnit.has(u + 0.5) }))
        .filter((u) => !q || String(u.id).includes(q) || u.name.includes(q));
      if (query.get('render') === 'svg') return { status: 200, body: svg(row, all), type: 'image/svg+xml' };
      const limit = Math.max(1, Number(query.get('limit') ?? all.length) || all.length);
      const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
      const page = (o: number) => `${baseUrl}/api/dcim/racks/${row.id}/elevation/?${new URLSearchParams({ ...Object.fromEntries(query), limit: String(limit), offset: String(o) })}`;
      return {
        status: 200,
        body: {
          count: all.length,
          next: offset + limit < all.length ? page(offset + limit) : null,
          previous: offset > 0 ? page(Math.max(0, offset - limit)) : null,
          results: all.slice(offset, offset + limit),
        },
      };
    },
  },
};

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** A plain drawing of one face: a row per unit, occupied units filled and labelled with the device. */
function svg(rack: Row, rows: { name: string; device: Row | null; occupied: boolean }[]): string {
  const unit = 22;
  const width = 230;
  const body = rows.map((u, i) => {
    const y = 20 + i * unit;
    const fill = u.occupied ? '#9e9e9e' : '#f5f6f7';
    const label = u.device ? `<text x="${40 + (width - 40) / 2}" y="${y + 15}" text-anchor="middle" font-size="11">${escape(String(u.device.display))}</text>` : '';
    return `<text x="4" y="${y + 15}" font-size="10">${u.name}</text><rect x="40" y="${y}" width="${width - 40}" height="${unit}" fill="${fill}" stroke="#333"/>${label}`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width + 10}" height="${rows.length * unit + 30}"><text x="4" y="14" font-size="12">${escape(String(rack.name))}</text>${body}</svg>`;
}
