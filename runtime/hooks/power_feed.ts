/**
 * Power feeds: the rack must be in the panel's site; AC voltage is not negative; the available
 * power is voltage × amperage × utilisation (× √3 for three-phase), computed for a page at once.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';

export const powerFeed: ModelHooks = {
  computed: {
    async available_power(rows) {
      return new Map(rows.map((r) => {
        const watts = (Number(r.voltage) * Number(r.amperage) * Number(r.max_utilization)) / 100;
        return [Number(r.id), Math.round(r.phase === 'three-phase' ? watts * 1.732 : watts)];
      }));
    },
  },
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    for (const item of items) {
      if (Number(pick(item, 'voltage')) < 0 && pick(item, 'supply') === 'ac') item.errors.add('voltage', 'Voltage cannot be negative for AC supply');
    }
    const racked = items.filter((i) => pick(i, 'rack_id') != null);
    if (!racked.length) return;
    const racks = new Map((await db(model('Rack').definition.table).select('id', 'name', 'site_id').whereIn('id', racked.map((i) => pick(i, 'rack_id')))).map((r) => [Number(r.id), r]));
    const panels = new Map((await db(model('PowerPanel').definition.table).select('id', 'name', 'site_id').whereIn('id', racked.map((i) => pick(i, 'power_panel_id')))).map((r) => [Number(r.id), r]));
    for (const item of racked) {
      const rack = racks.get(Number(pick(item, 'rack_id')));
      const panel = panels.get(Number(pick(item, 'power_panel_id')));
      if (rack && panel && Number(rack.site_id) !== Number(panel.site_id)) {
        item.errors.add('rack', `Rack ${rack.name} and power panel ${panel.name} are in different sites.`);
      }
    }
  },
};
