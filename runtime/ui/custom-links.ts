/**
 * Custom links on an object's page: the enabled links for its type, their text and URL rendered
 * from their templates with the object (as the API shows it). A URL that is neither http(s) nor a
 * local path (javascript:, data:) is dropped; a template that fails leaves its link out.
 */
import type { Context } from 'koa';
import { byContentType } from '../data/registry.js';
import { render } from '../webhooks/template.js';
import { callView } from './api-call.js';
import type { ModelEntry } from '../core/types.js';
import type { ApiViews } from './api-views.js';

const CUSTOM_LINK_TYPE = 'extras.customlink';

export interface LinkButton { text: string; href: string; css: string; newWindow: boolean }

export async function customLinks(ctx: Context, api: ApiViews, entry: ModelEntry, object: Record<string, unknown>): Promise<LinkButton[]> {
  const links = byContentType.get(CUSTOM_LINK_TYPE);
  if (!links) return [];
  const result = await callView(ctx, api.get(links)!.list, { query: new URLSearchParams({ content_types: entry.definition.contentType, enabled: 'true', limit: '100' }) });
  if (!result.ok) return [];
  const out: LinkButton[] = [];
  for (const link of result.body.results as Record<string, any>[]) {
    try {
      const text = (await render(String(link.link_text), { object }, 'link_text')).trim();
      const href = (await render(String(link.link_url), { object }, 'link_url')).trim();
      if (!text || !/^(https?:\/\/|\/(?!\/))/i.test(href)) continue;
      const css = String(link.button_class?.value ?? link.button_class ?? 'outline-dark');
      out.push({ text, href, css: /^[a-z-]+$/.test(css) ? css : 'outline-dark', newWindow: link.new_window === true });
    } catch {
      // A link whose template fails is left out; the page still renders.
    }
  }
  return out;
}
