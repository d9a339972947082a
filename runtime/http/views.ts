/**
 * The generic views every model gets: list, retrieve, create (one or many), update (one or many),
 * delete (one or many) and OPTIONS. They read the model's generated tables and never name a model.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { applyFilters } from '../data/filters.js';
import { checkFilterNames } from '../data/filter-names.js';
import type { Row } from '../data/registry.js';
import { whereAny } from '../data/any.js';
import { renderRows } from '../data/serialize.js';
import { createObjects, deleteObjects, updateObjects, type WriteContext, type WriteResult } from '../data/write.js';
import type { ModelEntry } from '../core/types.js';
import { countRows } from '../data/count.js';
import { pageColumns } from '../data/page-columns.js';
import { paginate, type Page } from './pagination.js';
import { filledBefore, listShape, rememberFill } from './full-pages.js';
import { isPostgres } from '../data/db.js';
import { readByIds, readRows } from '../data/reads.js';
import { writeTransaction } from './idempotency.js';
import { customFieldsFor } from '../data/customfields.js';
import { withSavedFilters } from './saved-filters.js';
import { exportTemplateFor, sendExport } from './export.js';
import { controlParams, inChangeForms, renderBase, requestVersion } from './versions.js';
import { filteringIn, pathsIn } from '../core/versions.js';
import { describeFields } from './describe-fields.js';
import { readForm, trimKeys, type ReadForm } from './field-selection.js';
import type { Services, State } from './state.js';
import { authorize, requireWithin, scoped, unscoped } from './access.js';
import { applyOrdering, excluded, pageQuery } from './list-query.js';
import { checkIfMatch, sendEtag } from './etag.js';

export type { Services, State } from './state.js';
export { authorize, scoped } from './access.js';

/** The database a read of this request uses: the standby read routing chose, else the primary. */
function readerOf(ctx: Context, services: Services): Knex {
  return (ctx.state as State).readDb ?? services.db;
}

function baseUrl(ctx: Context): string {
  return renderBase(ctx).baseUrl;
}

/**
 * A cursor page (`start`): `id >= start ORDER BY id LIMIT n`, read from the primary key's index, so
 * page 1,000 costs what page 1 does; nothing is counted (`count` is null, as in NetBox 4.6).
 */
async function cursorPage(ctx: Context, entry: ModelEntry, db: Knex, base: Knex.QueryBuilder, params: URLSearchParams, page: Page, columns: string[] | null, form: ReadForm): Promise<void> {
  const table = entry.definition.table;
  const query = base.clone().select(columns ?? '*').where(`${table}.id`, '>=', page.start!).orderBy(`${table}.id`, 'asc');
  if (page.limit !== null) query.limit(page.limit);
  const rows: Row[] = await readRows(db, query);
  const results = trimKeys(await renderRows(entry, rows, { db, ...renderBase(ctx), ...form }), form);
  const lastId = rows.length ? Number(rows[rows.length - 1].id) : null;
  ctx.body = { count: null, ...page.cursorLinks(`${baseUrl(ctx)}${ctx.path}`, params, rows.length, lastId), results };
}

/**
 * The fields a write's answer keeps (`?fields=`, `?omit=`) in a version with field selection, as a
 * read's; worked out before the write, so a name the version lacks refuses it unwritten.
 */
function writeForm(ctx: Context, entry: ModelEntry, strict: boolean): ReadForm | undefined {
  const version = requestVersion(ctx);
  const params = ctx.URL.searchParams;
  if (!version?.fieldSelection || (!params.has('fields') && !params.has('omit'))) return undefined;
  return { ...readForm(entry, params, version, strict), brief: false };
}

async function respondWithObjects(ctx: Context, entry: ModelEntry, db: Knex, result: WriteResult, status: number, many: boolean, form?: ReadForm): Promise<void> {
  const { ids, reveal, data } = result;
  let results: Record<string, unknown>[];
  // The change records' representations (rendered in the change log's forms) answer when the request asks for those forms.
  if (!form && data && inChangeForms(ctx) && [...reveal.values()].every((r) => !Object.keys(r).length)) {
    results = ids.map((id) => data.get(id)!);
    // a representation's last_updated is the stored value
    if (!many) sendEtag(ctx, { last_updated: results[0].last_updated });
  } else {
    const rows: Row[] = await whereAny(db, db(entry.definition.table), 'id', ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => order.get(Number(a.id))! - order.get(Number(b.id))!);
    results = await renderRows(entry, rows, { db, ...renderBase(ctx), reveal, ...form });
    if (form) trimKeys(results, form);
    if (!many) sendEtag(ctx, rows[0]);
  }
  ctx.status = status;
  ctx.body = many ? results : results[0];
  if (!many && status === 201) ctx.set('Location', `${baseUrl(ctx)}${pathsIn(entry, renderBase(ctx).version).list}${ids[0]}/`);
}

/** The context of a write; an API request's version decides which fields its body has (the web interface, unversioned, writes every field). */
export function writeContext(ctx: Context, db: Knex, services: Services): WriteContext {
  const state = ctx.state as State;
  const base = renderBase(ctx);
  return {
    db, user: state.auth?.user ?? null, now: new Date().toISOString(), requestId: state.requestId, baseUrl: base.origin, version: requestVersion(ctx)?.version, partialTags: requestVersion(ctx)?.partialTags,
    rules: { enforceGlobalUnique: services.config.enforceGlobalUnique, tokenPeppers: services.peppers, imageAttachmentMaxSize: services.config.limits.imageAttachmentMaxSize },
  };
}

function requireBody(ctx: Context): unknown {
  const state = ctx.state as State;
  if (!state.hasBody) throw errors.validation({ non_field_errors: ['No data provided'] });
  return state.body;
}

/**
 * The generic create path, for views and hook actions alike: add permission, one transaction,
 * validation and change capture, add constraints on the result, the 201 response.
 */
export async function createThrough(ctx: Context, services: Services, entry: ModelEntry, build: (trx: Knex) => Promise<{ items: unknown[]; many: boolean }>): Promise<{ status: number; body: unknown }> {
  authorize(ctx, entry, 'add', services.config);
  const form = writeForm(ctx, entry, services.config.strictFilters);
  await writeTransaction(ctx, services.db, async (trx) => {
    const { items, many } = await build(trx);
    const result = await createObjects(entry, items, many, writeContext(ctx, trx, services));
    await requireWithin(ctx, trx, entry, result.ids, 'add', true);
    await respondWithObjects(ctx, entry, trx, result, 201, many, form);
  });
  services.afterCommit?.();
  return { status: ctx.status, body: ctx.body };
}

export function views(entry: ModelEntry, services: Services) {
  const { db, config } = services;
  const d = entry.definition;

  /** The list's table with the request's filters and the user's permission scope (no order, page or columns). */
  async function filtered(ctx: Context): Promise<{ db: Knex; params: URLSearchParams; base: Knex.QueryBuilder }> {
    authorize(ctx, entry, 'view', config, true);
    const db = readerOf(ctx, services);
    const params = await withSavedFilters(db, entry, ctx.URL.searchParams, (ctx.state as State).auth.user);
    const base = db(d.table);
    const customFields = d.customFields && [...params.keys()].some((k) => k.startsWith('cf_')) ? await customFieldsFor(db, entry) : [];
    // the filters of the request's version: one that exists only in another version is unknown here
    const filtering = filteringIn(entry, renderBase(ctx).version);
    checkFilterNames(filtering, params, customFields, config.strictFilters, controlParams(requestVersion(ctx)));
    applyFilters(base, filtering, params, { db, customFields, user: (ctx.state as State).auth.user });
    scoped(db, entry, ctx)(base);
    return { db, params, base };
  }

  return {
    async list(ctx: Context): Promise<void> {
      const { db, params, base } = await filtered(ctx);
      const template = await exportTemplateFor(db, entry, params);
      const cursor = !!requestVersion(ctx)?.cursorPagination;
      if (template) {
        const query = base.clone().select('*');
        applyOrdering(query, entry, params);
        const all = await renderRows(entry, await query, { db, ...renderBase(ctx), exclude: excluded(params) });
        return sendExport(ctx, entry, template, all);
      }
      const form = readForm(entry, params, requestVersion(ctx) ?? { version: renderBase(ctx).version }, config.strictFilters);
      const page = paginate(params, config, cursor);
      const columns = await pageColumns(db, entry);
      if (page.start !== null) return cursorPage(ctx, entry, db, base, params, page, columns, form);
      // On PostgreSQL a count that will be needed starts with the page: a later page always needs
      // it, a first page when the same question filled it last time (full-pages.ts). Otherwise it
      // waits for the page: most first pages are short, and a count nobody reads is a statement and
      // a connection wasted.
      const paged = isPostgres(db) && page.limit !== null;
      const shape = paged && page.offset === 0 ? listShape(d.table, page.limit!, params) : null;
      const early = paged && (page.offset > 0 || (shape !== null && filledBefore(shape)))
        ? countRows(db, d.table, base, config.countExactLimit) : null;
      // Unread when the page fails or comes back short: its failure must not go unhandled then.
      early?.catch(() => undefined);
      // Past knex's runner (readRows): for a page of 100 rows the runner costs more than the read.
      const rows: Row[] = await readRows(db, pageQuery(db, entry, base, params, page, columns));
      const short = page.limit === null || rows.length < page.limit;
      if (shape) rememberFill(shape, !short);
      // A short first page already tells the total; otherwise count with the same filters, while the
      // page renders (on PostgreSQL on a connection of its own, count.ts).
      const counted = page.offset === 0 && short
        ? { count: rows.length, estimated: false }
        : early ?? countRows(db, d.table, base, config.countExactLimit);
      const [{ count, estimated }, results] = await Promise.all([counted, renderRows(entry, rows, { db, ...renderBase(ctx), ...form }).then((r) => trimKeys(r, form))]);
      // An estimate may fall short of the rows there are: a full page always has a next one then.
      const linkCount = estimated && page.limit !== null && rows.length === page.limit ? Math.max(count, page.offset + rows.length + 1) : count;
      if (estimated) ctx.set('X-Count-Estimated', 'true');
      ctx.body = { count, ...page.links(`${baseUrl(ctx)}${ctx.path}`, params, linkCount), results };
    },

    /** `{count}` of the list the same query asks for, as its `count` reads, without reading a page (the web pages' counts). */
    async count(ctx: Context): Promise<void> {
      const { db, base } = await filtered(ctx);
      ctx.body = { count: (await countRows(db, d.table, base, config.countExactLimit)).count };
    },

    async retrieve(ctx: Context): Promise<void> {
      authorize(ctx, entry, 'view', config);
      const db = readerOf(ctx, services);
      const id = Number(ctx.params.id);
      // Nothing to narrow (a superuser, a permission without constraints): the read compiled once.
      const [row] = unscoped(entry, ctx)
        ? await readByIds(db, `retrieve:${d.table}`, [id], ([key]) => db(d.table).where('id', key).limit(1))
        : await readRows(db, db(d.table).where('id', id).modify(scoped(db, entry, ctx)).limit(1));
      if (!row) throw errors.notFound();
      const form = readForm(entry, ctx.URL.searchParams, requestVersion(ctx) ?? { version: renderBase(ctx).version }, config.strictFilters);
      ctx.body = trimKeys(await renderRows(entry, [row], { db, ...renderBase(ctx), ...form }), form)[0];
      sendEtag(ctx, row);
    },

    async create(ctx: Context): Promise<void> {
      authorize(ctx, entry, 'add', config);
      const body = requireBody(ctx);
      const many = Array.isArray(body);
      await createThrough(ctx, services, entry, async () => ({ items: many ? body : [body], many }));
    },

    async update(ctx: Context, partial: boolean): Promise<void> {
      authorize(ctx, entry, 'change', config);
      const body = requireBody(ctx);
      const detail = ctx.params.id !== undefined;
      if (detail && (body === null || typeof body !== 'object' || Array.isArray(body))) throw errors.validation({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
      if (!detail && !Array.isArray(body)) throw errors.validation({ non_field_errors: ['Expected a list of items.'] });
      const items = detail ? [{ ...(body as Record<string, unknown>), id: Number(ctx.params.id) }] : (body as unknown[]);
      const form = writeForm(ctx, entry, config.strictFilters);
      await writeTransaction(ctx, db, async (trx) => {
        const ids = items.map((i) => Number((i as Record<string, unknown>)?.id)).filter(Number.isInteger);
        await requireWithin(ctx, trx, entry, ids, 'change');
        if (detail) await checkIfMatch(ctx, trx, entry, ids[0]);
        const result = await updateObjects(entry, items, partial, !detail, writeContext(ctx, trx, services), scoped(trx, entry, ctx));
        await requireWithin(ctx, trx, entry, result.ids, 'change', true);
        await respondWithObjects(ctx, entry, trx, result, 200, !detail, form);
          });
      services.afterCommit?.();
    },

    async remove(ctx: Context): Promise<void> {
      authorize(ctx, entry, 'delete', config);
      const detail = ctx.params.id !== undefined;
      let items: unknown[];
      if (detail) items = [Number(ctx.params.id)];
      else {
        const body = requireBody(ctx);
        if (!Array.isArray(body)) throw errors.validation({ non_field_errors: ['Expected a list of items.'] });
        items = body;
      }
      await writeTransaction(ctx, db, async (trx) => {
        const ids = items.map((i) => Number(typeof i === 'object' && i !== null ? (i as Record<string, unknown>).id : i)).filter(Number.isInteger);
        await requireWithin(ctx, trx, entry, ids, 'delete');
        if (detail) await checkIfMatch(ctx, trx, entry, ids[0]);
        await deleteObjects(entry, items, !detail, writeContext(ctx, trx, services), scoped(trx, entry, ctx));
        ctx.status = 204;
        ctx.body = null;
          });
      services.afterCommit?.();
    },

    /** DRF-style metadata; `actions` only for a token that may write here (pynetbox's choices() reads it). */
    async options(ctx: Context): Promise<void> {
      const { auth } = ctx.state as State;
      const detail = ctx.params.id !== undefined;
      const body: Record<string, unknown> = {
        name: `${d.verboseName.replace(/\b\w/g, (c) => c.toUpperCase())} ${detail ? 'Instance' : 'List'}`,
        description: '',
        renders: ['application/json'],
        parses: ['application/json'],
      };
      let mayWrite = false;
      try { authorize(ctx, entry, detail ? 'change' : 'add', config); mayWrite = !!auth.user; } catch { mayWrite = false; }
      if (mayWrite) body.actions = { [detail ? 'PUT' : 'POST']: describeFields(entry, renderBase(ctx).version) };
      ctx.body = body;
    },
  };
}
