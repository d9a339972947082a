/**
 * HTML responses: mustache templates from templates/ui/ (escaping by default), wrapped in the
 * layout; the security headers every page carries (a Content-Security-Policy that allows no inline
 * script or style).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Mustache from 'mustache';
import type { Context } from 'koa';
import { staticUrl, TEMPLATE_DIR } from './static.js';
import type { Page } from './page.js';

const UI_DIR = join(TEMPLATE_DIR, 'ui');
// HTML's five special characters, as every other page of the service escapes them (mustache's default also escapes / = and `).
Mustache.escape = (text: string) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const templates = new Map<string, string>();
for (const file of readdirSync(UI_DIR)) {
  if (!file.endsWith('.mustache')) continue;
  const text = readFileSync(join(UI_DIR, file), 'utf8');
  templates.set(file.replace(/\.mustache$/, ''), text);
  Mustache.parse(text);
}
const partials = Object.fromEntries(templates);

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

export function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

/** Renders one template (no layout): an htmx fragment, or the inside of a page. */
export function renderTemplate(name: string, view: object): string {
  const template = templates.get(name);
  if (template === undefined) throw new Error(`no template templates/ui/${name}.mustache`);
  return Mustache.render(template, view, partials);
}

/**
 * Sends a page: the template inside the layout, or only the template for an htmx request that
 * targets a fragment (HX-Request), so partial updates carry no navigation.
 */
export function sendPage(ctx: Context, page: Page, template: string, view: object, status = 200): void {
  securityHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.vary('HX-Request');
  const content = renderTemplate(template, view);
  if (ctx.get('HX-Request') === 'true' && ctx.get('HX-Target')) {
    ctx.body = content;
    return;
  }
  ctx.body = renderTemplate('layout', { ...page, content, static: staticUrl });
}
