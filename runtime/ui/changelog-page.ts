/** `/extras/changelog/`: every change, newest first, with its before/after difference. */
import { byContentType } from '../data/registry.js';
import { changesView, CHANGE_TYPE } from './changes.js';
import { may } from './page.js';
import { sendPage } from './render.js';
import { forbidden } from './objects.js';
import type { UiContext } from './context.js';

export async function changelogPage({ ctx, services, page, api }: UiContext): Promise<void> {
  const entry = byContentType.get(CHANGE_TYPE);
  if (!entry || !may(ctx, entry, 'view', services)) return forbidden(ctx, page);
  const view = await changesView(ctx, api.get(entry)!.list, new URLSearchParams(ctx.URL.searchParams));
  sendPage(ctx, { ...page, title: 'Change log' }, 'changelog', view);
}
