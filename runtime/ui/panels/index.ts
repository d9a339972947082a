/** The panels a model's `ui.panels` may name, by name (runtime/ui/panels.ts renders them). */
import type { PanelFn } from '../panels.js';
import { rackElevation } from './rack_elevation.js';
import { cableEnds } from './cable_ends.js';

export const panels: Record<string, PanelFn> = { rack_elevation: rackElevation, cable_ends: cableEnds };
