/** A utilization column from a figure per id, computed for all of the page's rows in a fixed number of queries. */
import type { Knex } from 'knex';
import type { ColumnView } from '../column-view.js';
import { barView } from '../bar.js';

export function utilizationColumn(figures: (db: Knex, ids: number[]) => Promise<Map<number, number>>): ColumnView {
  return {
    label: 'Utilization',
    async render(db, rows) {
      const byId = await figures(db, rows.map((r) => Number(r.id)));
      return rows.map((r) => ({ bar: barView(byId.get(Number(r.id)) ?? 0) }));
    },
  };
}
