/** The panels a model's `ui.panels` may name, by name (runtime/ui/panels.ts renders them). */
import type { PanelFn } from '../panels.js';
import { rackElevation } from './rack_elevation.js';

export const panels: Record<string, PanelFn> = { rack_elevation: rackElevation };
