/** The panels a model's `ui.panels` may name, by name (runtime/ui/panels.ts renders them). */
import type { PanelFn } from '../panel.js';
import { rackElevation } from './rack_elevation.js';
import { cableEnds } from './cable_ends.js';
import { duplicateIps } from './duplicate_ips.js';
import { relatedIps } from './related_ips.js';
import { parentPrefixes } from './parent_prefixes.js';
import { aggregateUtilization } from './aggregate_utilization.js';
import { rangeUtilization } from './range_utilization.js';

export const panels: Record<string, PanelFn> = {
  rack_elevation: rackElevation,
  cable_ends: cableEnds,
  duplicate_ips: duplicateIps,
  related_ips: relatedIps,
  parent_prefixes: parentPrefixes,
  aggregate_utilization: aggregateUtilization,
  range_utilization: rangeUtilization,
};
