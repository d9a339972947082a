/**
 * A column the list page adds after a model's own (`ui.column_views`, runtime/ui/column-views/<name>.ts):
 * computed for the whole page at once from the listed rows, a bar (utilization) or text per row.
 */
import type { Knex } from 'knex';
import type { Bar } from './bar.js';

export interface ColumnCell { bar?: Bar; text?: string }

export interface ColumnView {
  label: string;
  /** one cell per row, in the rows' order */
  render(db: Knex, rows: Record<string, any>[]): Promise<ColumnCell[]>;
}
