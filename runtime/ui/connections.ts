/**
 * `/<app>/<path>/` of a model whose schema declares `ui.connections` (NetBox's console, power and
 * interface connections): the model's rows whose path reaches a far end, each beside that end's
 * parent (its `cabling.parent`, a device) and port, and whether the path is reachable. The rows are
 * the API's list with `connected=True`; any other query parameter filters it as on the list page.
 */
import { byContentType, modelList } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { callView, errorText } from './api-call.js';
import { apiQuery, PAGE_SIZES, withParams } from './list.js';
import { label, listUrl, may } from './page.js';
import { sendPage } from './render.js';
import { cell } from './values.js';
import type { UiContext } from './context.js';

/** The connection lists, by page path. */
const PAGES = new Map<string, ModelEntry>(modelList.flatMap((entry) => {
  const c = entry.definition.ui?.connections;
  return c ? [[`/${entry.definition.app}/${c.path}/`, entry] as [string, ModelEntry]] : [];
}));

/** Whether the path is a connection list's. */
export function isConnectionsPage(path: string): boolean {
  return PAGES.has(path);
}

type Nested = Record<string, unknown> | null | undefined;

/** The far end's parent (the `cabling.parent` of its model, as its nested form carries it). */
function farParent(far: Nested, type: unknown): unknown {
  const parent = byContentType.get(String(type))?.definition.cabling?.parent;
  return far && parent ? far[parent] : null;
}

/** Serves the page; false when the path is another. */
export async function connectionsPage(ui: UiContext): Promise<boolean> {
  const { ctx, services, page, api } = ui;
  const entry = PAGES.get(ctx.path);
  if (!entry || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  const spec = entry.definition.ui!.connections!;
  if (!may(ctx, entry, 'view', services)) {
    sendPage(ctx, { ...page, title: 'Forbidden' }, 'message', { heading: 'Forbidden', text: 'You do not have permission to do this.' }, 403);
    return true;
  }
  const { query, page: pageNumber, perPage } = apiQuery(ctx.URL.searchParams);
  query.set('connected', 'True');
  const shown = new Set(['id', 'url', 'display', 'name', 'device', 'connected_endpoints', 'connected_endpoints_type', 'connected_endpoints_reachable']);
  query.set('exclude', entry.serializer.full.filter((f) => !shown.has(f)).join(','));
  const listed = await callView(ctx, api.get(entry)!.list, { query, path: `/api/${entry.definition.app}/${entry.definition.endpoint}/` });
  const rows = listed.ok ? (listed.body.results as Record<string, any>[]) : [];
  const count = listed.ok ? Number(listed.body.count) : 0;
  const pages = Math.max(1, Math.ceil(count / perPage));
  const base = new URLSearchParams(ctx.URL.searchParams);
  base.delete('page');
  const columns = ['Device', label(entry), spec.farParent, spec.farPort, 'Reachable'];
  const view = {
    heading: spec.label,
    listUrl: listUrl(entry),
    error: listed.ok ? null : errorText(listed.error),
    caption: spec.label,
    columns: columns.map((label) => ({ label })),
    rows: rows.map((r) => {
      const far = (r.connected_endpoints as Nested[] | null)?.[0];
      const farPort = far ? { display: far.display ?? far.name, url: far.url } : null;
      return {
        cells: [
          { first: false, ...cell(r.device) },
          { first: true, url: `${listUrl(entry)}${r.id}/`, value: String(r.name ?? r.display) },
          { first: false, ...cell(farParent(far, r.connected_endpoints_type)) },
          { first: false, ...cell(farPort) },
          { first: false, ...cell(r.connected_endpoints_reachable) },
        ],
      };
    }),
    empty: rows.length ? null : 'No connections match.',
    q: ctx.URL.searchParams.get('q') ?? '',
    count,
    pageNumber,
    pages,
    pageSizes: PAGE_SIZES.map((n) => ({ n, selected: n === perPage })),
    prevUrl: pageNumber > 1 ? withParams(base, { page: String(pageNumber - 1) }) : null,
    nextUrl: pageNumber < pages ? withParams(base, { page: String(pageNumber + 1) }) : null,
  };
  sendPage(ctx, { ...page, title: view.heading }, 'connections', view);
  return true;
}
