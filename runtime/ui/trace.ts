/**
 * `/<app>/<endpoint>/<id>/trace/` for every model the schema says can take a cable (`cabling:`): the
 * whole path drawn segment by segment (runtime/ui/trace-svg.ts) with a table of its hops. The path is
 * the API's own: an endpoint's `trace` action; a pass-through (front/rear port, circuit termination)
 * lists the stored paths through it (its `paths` action) and draws the chosen one (`?path=<id>`,
 * else the first) as traced from that path's origin, so no tracing happens here.
 */
import type { ModelEntry } from '../core/types.js';
import { modelList } from '../data/registry.js';
import { callView } from './api-call.js';
import { hookView } from './hook-view.js';
import { label, listUrl, may } from './page.js';
import { sendPage } from './render.js';
import { traceSvg, type Hop } from './trace-svg.js';
import { cableModel, modelOfNested, ownerOf } from './cabling.js';
import { pageUrl } from './values.js';
import { notFound } from './objects.js';
import type { UiContext } from './context.js';

const TRACE_PAGE = /^\/([a-z]+)\/([a-z0-9-]+)\/(\d{1,15})\/trace\/$/;
/** The cabled model at `/<app>/<endpoint>/`, if any. */
function cabledAt(app: string, endpoint: string): ModelEntry | undefined {
  return modelList.find((m) => m.definition.cabling && m.definition.app === app && m.definition.endpoint === endpoint);
}

/** The hops of the path that starts at an endpoint (its trace action), or null. */
export async function traceOf(ui: UiContext, entry: ModelEntry, id: number): Promise<Hop[] | null> {
  const view = hookView(entry, 'trace', ui.services);
  if (!view) return null;
  const result = await callView(ui.ctx, view, { params: { id: String(id) }, path: `/api/${entry.definition.app}/${entry.definition.endpoint}/${id}/trace/` });
  return result.ok ? (result.body as Hop[]) : null;
}

function describe(o: Record<string, any>): { owner: string; ownerUrl?: string; name: string; url?: string } {
  const owner = ownerOf(o);
  return { owner: owner ? String(owner.display ?? owner.name ?? '') : '', ownerUrl: pageUrl(owner?.url), name: String(o.name ?? o.display ?? o.id), url: pageUrl(o.url) };
}

/** Serves a trace page; false when the path is not one. */
export async function tracePage(ui: UiContext): Promise<boolean> {
  const m = TRACE_PAGE.exec(ui.ctx.path);
  const entry = m ? cabledAt(m[1], m[2]) : undefined;
  if (!m || !entry) return false;
  const { ctx, services, page } = ui;
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  if (!may(ctx, entry, 'view', services)) return false;
  const id = Number(m[3]);
  const retrieved = await callView(ctx, ui.api.get(entry)!.retrieve, { params: { id: String(id) }, path: `/api/${m[1]}/${m[2]}/${id}/` });
  if (!retrieved.ok) { notFound(ctx, page); return true; }
  const object = retrieved.body;
  let hops: Hop[] = [];
  let paths: { id: number; url: string; origin: string; destination: string; active: boolean }[] = [];
  if (entry.definition.cabling!.role === 'endpoint') {
    hops = (await traceOf(ui, entry, id)) ?? [];
  } else {
    const view = hookView(entry, 'paths', services);
    const result = view ? await callView(ctx, view, { params: { id: String(id) }, path: `/api/${m[1]}/${m[2]}/${id}/paths/` }) : null;
    const found = (result?.ok ? result.body : []) as { id: number; path: Record<string, any>[][]; is_complete: boolean }[];
    const chosen = found.find((p) => String(p.id) === ctx.query.path) ?? found[0];
    const end = (p: Record<string, any>[] | undefined) => (p ?? []).map((o) => { const d = describe(o); return d.owner ? `${d.owner} › ${d.name}` : d.name; }).join(', ');
    paths = found.map((p) => ({ id: p.id, url: `?path=${p.id}`, origin: end(p.path[0]), destination: p.is_complete ? end(p.path[p.path.length - 1]) : 'Not connected', active: p === chosen }));
    const origin = chosen?.path[0]?.[0];
    const originEntry = modelOfNested(origin);
    if (origin && originEntry && may(ctx, originEntry, 'view', services)) hops = (await traceOf(ui, originEntry, Number(origin.id))) ?? [];
  }
  const own = describe(object);
  const title = `${own.owner ? `${own.owner} › ` : ''}${object.display ?? own.name}`;
  const rows = hops.map(([near, cable, far], i) => {
    const c = Array.isArray(cable) ? cable[0] : cable;
    return {
      n: i + 1,
      near: near.map(describe),
      cable: c ? { text: c.label || c.display || `#${c.id}`, url: pageUrl(c.url) } : null,
      far: far.map(describe),
      farEmpty: !far.length,
    };
  });
  const cableEntry = cableModel();
  const connectable = !object.cable && !object.mark_connected && !!cableEntry && may(ctx, cableEntry, 'add', services);
  const view = {
    heading: `Cable trace for ${label(entry).toLowerCase()} ${title}`,
    objectUrl: `${listUrl(entry)}${id}/`,
    objectText: title,
    plural: label(entry, true),
    listUrl: listUrl(entry),
    svg: hops.length ? traceSvg(hops, `Cable path of ${title}`) : '',
    hasPath: hops.length > 0,
    rows,
    paths,
    hasPaths: paths.length > 1,
    connectUrl: connectable ? `${listUrl(cableEntry!)}add/?${new URLSearchParams({ a_terminations_type: entry.definition.contentType, a_terminations: String(id), return_url: `${listUrl(entry)}${id}/` })}` : null,
  };
  sendPage(ctx, { ...page, title: view.heading }, 'trace', view);
  return true;
}
