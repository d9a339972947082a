/** What an extra panel of an object's page is (ui.panels), and the function that renders one. */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import type { Services } from '../http/state.js';
import type { ApiViews } from './api-views.js';

export interface Panel {
  title: string;
  html: string;
  wide?: boolean;
  /** a Tabler colour the card is drawn in (a warning) */
  tone?: string;
  /** the html is a table that fills the card (no padding) */
  table?: boolean;
}
export type PanelFn = (ctx: Context, services: Services, api: ApiViews, entry: ModelEntry, object: Record<string, any>) => Promise<Panel | null>;
