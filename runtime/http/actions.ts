/**
 * Extra detail routes a schema declares under `actions:` (e.g. POST
 * /api/extras/webhook-deliveries/<id>/retry/), served by a function of one of the model's hooks. The
 * object must exist and be visible to the user; GET needs view permission, other methods change
 * permission. An app route (`app: true`, /api/<app>/<name>/) has no object. After a write, the
 * services' afterCommit runs, as for the generic views.
 */
import { renderBase } from './versions.js';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { hooksOf, model, type Action } from '../data/registry.js';
import { authorize, createThrough, scoped, type Services, type State } from './views.js';
import type { ModelEntry, RouteDefinition } from '../core/types.js';
import { paginate } from './pagination.js';

export function actionView(entry: ModelEntry, extra: RouteDefinition['extra'][number], services: Services) {
  const { db, config } = services;
  const handler = hooksOf(entry).map((h) => h.actions?.[extra.hook]).find(Boolean);
  if (!handler) throw new Error(`${entry.definition.source}: no hook of ${entry.definition.name} provides action '${extra.hook}'`);
  return async (ctx: Context): Promise<void> => {
    const action: Action = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'view' : extra.permission ?? 'change';
    authorize(ctx, entry, action, config);
    const state = ctx.state as State;
    let row = {};
    // an app route has no object; a detail route's object must exist and be visible
    if (!extra.app) {
      const q = db(entry.definition.table).where('id', Number(ctx.params.id));
      scoped(db, entry, ctx, action)(q);
      row = await q.first();
      if (!row) throw errors.notFound();
    }
    const result = await handler({
      db, entry, row, user: state.auth.user, method: ctx.method, body: state.hasBody ? state.body : undefined,
      baseUrl: renderBase(ctx).baseUrl, version: renderBase(ctx).version, requestId: state.requestId, query: ctx.URL.searchParams, accept: ctx.get('Accept'), field: extra.field, page: paginate(ctx.URL.searchParams, config),
      create: (modelName, build) => createThrough(ctx, services, model(modelName), build),
    });
    ctx.status = result.status;
    if (result.type) ctx.type = result.type;
    ctx.body = result.body;
    if (action !== 'view') services.afterCommit?.();
  };
}
