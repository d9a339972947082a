/** The API's generic views of every model, which the web interface reads and writes through. */
import type { Context } from 'koa';
import type { ModelEntry } from '../core/types.js';
import type { ViewFn } from './api-call.js';

export type ApiViews = Map<ModelEntry, { list: ViewFn; count: ViewFn; retrieve: ViewFn; create: ViewFn; update: (ctx: Context, partial: boolean) => Promise<void>; remove: ViewFn }>;
