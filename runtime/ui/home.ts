/**
 * `/`: object counts per model grouped by the menu's menus (each a link to its list), the user's
 * bookmarks, the latest changes, and `/search/?q=`, which runs every model's `q` filter and lists
 * what matched.
 */
import { byContentType, modelList, models } from '../data/registry.js';
import { navigation } from '../../generated/menu.js';
import { callView } from './api-call.js';
import { label, listUrl, may } from './page.js';
import { sendPage } from './render.js';
import { CHANGE_TYPE, changesView } from './changes.js';
import { pageUrl } from './values.js';
import type { State } from '../http/views.js';
import type { UiContext } from './context.js';

const SEARCH_LIMIT = 10;
const BOOKMARKS_SHOWN = 20;

export async function homePage({ ctx, services, page, api }: UiContext): Promise<void> {
  const groups = [];
  for (const menu of navigation) {
    const counted = [];
    for (const item of menu.groups.flatMap((g) => g.items)) {
      const entry = models[item.model];
      if (item.url || !entry || !may(ctx, entry, 'view', services)) continue;
      const result = await callView(ctx, api.get(entry)!.list, { query: new URLSearchParams({ limit: '1', brief: '1' }) });
      if (result.ok) counted.push({ label: label(entry, true), url: listUrl(entry), count: result.body.count });
    }
    if (counted.length) groups.push({ label: menu.label, models: counted });
  }
  const bookmarks = await bookmarksOf(ctx, services, api);
  const changeEntry = byContentType.get(CHANGE_TYPE);
  const recent = changeEntry && may(ctx, changeEntry, 'view', services) ? await changesView(ctx, api.get(changeEntry)!.list, new URLSearchParams(), 10) : null;
  sendPage(ctx, { ...page, title: 'Home' }, 'home', {
    apps: groups,
    bookmarks: bookmarks ?? [],
    hasBookmarks: !!bookmarks,
    recent: recent?.changes ?? [],
    hasRecent: !!recent,
  });
}

/** The user's bookmarks, newest first, each a link to the object's page; null when bookmarks cannot be read. */
async function bookmarksOf(ctx: UiContext['ctx'], services: UiContext['services'], api: UiContext['api']): Promise<{ display: string; url?: string }[] | null> {
  const entry = byContentType.get('extras.bookmark');
  const user = (ctx.state as State).auth?.user;
  if (!entry || !user || !may(ctx, entry, 'view', services)) return null;
  const result = await callView(ctx, api.get(entry)!.list, { query: new URLSearchParams({ user_id: String(user.id), ordering: '-created', limit: String(BOOKMARKS_SHOWN) }) });
  if (!result.ok) return null;
  return (result.body.results as { object?: { display?: string; url?: string }; display: string }[])
    .map((b) => ({ display: b.object?.display ?? b.display, url: pageUrl(b.object?.url) }));
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
