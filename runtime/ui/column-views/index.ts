/** The list columns a model's `ui.column_views` may name, by name (runtime/ui/list.ts adds them). */
import type { ColumnView } from '../column-view.js';
import { prefixUtilization } from './prefix_utilization.js';
import { aggregateUtilization } from './aggregate_utilization.js';
import { rangeUtilization } from './range_utilization.js';

export const columnViews: Record<string, ColumnView> = {
  prefix_utilization: prefixUtilization,
  aggregate_utilization: aggregateUtilization,
  range_utilization: rangeUtilization,
};
