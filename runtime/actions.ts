/**
 * Extra detail routes a schema declares under `actions:` (e.g. POST
 * /api/extras/webhook-deliveries/<id>/retry/), served by a function of one of the model's hooks. The
 * object must exist and be visible to the user; GET needs view permission, other methods change
 * permission. After a write, the services' afterCommit runs, as for the generic views.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { errors } from './errors.js';
import { hooksOf, type Action } from './registry.js';
import { authorize, type Services, type State } from './views.js';
import { applyConstraints, constraintFor } from './permissions.js';
import type { ModelEntry, RouteDefinition } from './types.js';

/** The objects a request may act on: hook scopes, then permission constraints (as the generic views narrow them). */
function narrow(db: Knex, entry: ModelEntry, ctx: Context, action: Action, qb: Knex.QueryBuilder): void {
  const { auth } = ctx.state as State;
  const user = auth.user;
  for (const hook of hooksOf(entry)) hook.scope?.(qb, user, entry.definition.table);
  if (!user || user.isSuperuser || hooksOf(entry).some((h) => h.selfService)) return;
  const constraint = constraintFor(auth.grants ?? [], entry.definition.contentType, action);
  if (constraint === 'denied') { if (action !== 'view') qb.whereRaw('1 = 0'); return; }
  if (constraint) applyConstraints(qb, db, entry, constraint, user);
}

export function actionView(entry: ModelEntry, extra: RouteDefinition['extra'][number], services: Services) {
  const { db, config } = services;
  const handler = hooksOf(entry).map((h) => h.actions?.[extra.hook]).find(Boolean);
  if (!handler) throw new Error(`${entry.definition.source}: no hook of ${entry.definition.name} provides action '${extra.hook}'`);
  return async (ctx: Context): Promise<void> => {
    const action: Action = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'view' : 'change';
    authorize(ctx, entry, action, config);
    const state = ctx.state as State;
    const q = db(entry.definition.table).where('id', Number(ctx.params.id));
    narrow(db, entry, ctx, action, q);
    const row = await q.first();
    if (!row) throw errors.notFound();
    const result = await handler({
      db, entry, row, user: state.auth.user, method: ctx.method, body: state.hasBody ? state.body : undefined,
      baseUrl: `${ctx.protocol}://${ctx.host}`, requestId: state.requestId,
    });
    ctx.status = result.status;
    ctx.body = result.body;
    if (action !== 'view') services.afterCommit?.();
  };
}
