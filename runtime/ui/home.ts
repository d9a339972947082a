/**
 * `/`: object counts per model grouped by app (each a link to its list), the latest changes, and
 * `/search/?q=`, which runs every model's `q` filter and lists what matched.
 */
import { byContentType, modelList } from '../data/registry.js';
import { callView } from './api-call.js';
import { APP_LABELS, label, listUrl, may } from './page.js';
import { sendPage } from './render.js';
import { CHANGE_TYPE, changesView } from './changes.js';
import type { UiContext } from './index.js';

const SEARCH_LIMIT = 10;

export async function homePage({ ctx, services, page, api }: UiContext): Promise<void> {
  const apps = new Map<string, { label: string; models: { label: string; url: string; count: number }[] }>();
  for (const entry of modelList) {
    if (!may(ctx, entry, 'view', services)) continue;
    const result = await callView(ctx, api.get(entry)!.list, { query: new URLSearchParams({ limit: '1', brief: '1' }) });
    if (!result.ok) continue;
    const app = entry.definition.app;
    if (!apps.has(app)) apps.set(app, { label: APP_LABELS[app] ?? app, models: [] });
    apps.get(app)!.models.push({ label: label(entry, true), url: listUrl(entry), count: result.body.count });
  }
  const changeEntry = byContentType.get(CHANGE_TYPE);
  const recent = changeEntry && may(ctx, changeEntry, 'view', services) ? await changesView(ctx, api.get(changeEntry)!.list, new URLSearchParams(), 10) : null;
  sendPage(ctx, { ...page, title: 'Home' }, 'home', {
    apps: [...apps.values()].sort((a, b) => a.label.localeCompare(b.label)),
    recent: recent?.changes ?? [],
    hasRecent: !!recent,
  });
}

export async function searchPage({ ctx, services, page, api }: UiContext): Promise<void> {
  const q = (ctx.URL.searchParams.get('q') ?? '').trim();
  const groups = [];
  if (q) {
    for (const entry of modelList) {
      if (!entry.filters.q || !may(ctx, entry, 'view', services)) continue;
      const result = await callView(ctx, api.get(entry)!.list, { query: new URLSearchParams({ q, limit: String(SEARCH_LIMIT), brief: '1' }) });
      if (!result.ok || !result.body.count) continue;
      groups.push({
        label: label(entry, true),
        count: result.body.count,
        more: result.body.count > SEARCH_LIMIT ? `${listUrl(entry)}?q=${encodeURIComponent(q)}` : null,
        results: (result.body.results as { id: number; display: string }[]).map((r) => ({ display: r.display, url: `${listUrl(entry)}${r.id}/` })),
      });
    }
  }
  sendPage(ctx, { ...page, title: q ? `Search: ${q}` : 'Search' }, 'search', { q, groups, searched: !!q, none: !!q && !groups.length });
}
