/**
 * The web pages read and write through the API's own views (runtime/http/views.ts), called in
 * process on the page's request: the same filters, permissions, validation, change log and
 * webhooks, and the same errors, which the page then shows next to their fields.
 */
import type { Context } from 'koa';
import { ApiError } from '../core/errors.js';
import type { State } from '../http/views.js';
import type { RequestVersion } from '../core/types.js';

export type ViewFn = (ctx: Context) => Promise<void>;

export interface ViewCall {
  /** the path the view believes it serves (pagination links are built from it) */
  path?: string;
  query?: URLSearchParams;
  params?: Record<string, string>;
  body?: unknown;
  /** a page listing the user's own objects of an owned model (State.ownObjects) */
  ownObjects?: boolean;
  /** the API version whose forms the view answers in (default: the schema's default version) */
  version?: RequestVersion;
}

export type ViewResult = { ok: true; status: number; body: any } | { ok: false; status: number; error: any };

/** Runs an API view against a view of this request; its JSON answer (or ApiError) comes back. */
export async function callView(ctx: Context, view: ViewFn, call: ViewCall = {}): Promise<ViewResult> {
  const url = new URL(`${call.path ?? ctx.path}${call.query?.size ? `?${call.query}` : ''}`, `${ctx.protocol}://${ctx.host}`);
  const sub = Object.create(ctx) as Context;
  Object.defineProperty(sub, 'URL', { value: url });
  Object.defineProperty(sub, 'path', { value: url.pathname });
  Object.defineProperty(sub, 'query', { value: Object.fromEntries(url.searchParams) });
  sub.params = call.params ?? {};
  const state: State = { ...(ctx.state as State), body: call.body, hasBody: call.body !== undefined, ownObjects: call.ownObjects };
  if (call.version) (state as State & { api?: RequestVersion }).api = call.version;
  Object.defineProperty(sub, 'state', { value: state });
  try {
    await view(sub);
    const result: ViewResult = { ok: true, status: ctx.status, body: ctx.body };
    // The page answers for itself: nothing of the API's answer (its body, a create's Location) stays.
    ctx.remove('Location');
    ctx.body = undefined;
    ctx.status = 404;
    return result;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { ok: false, status: error.status, error: error.body };
  }
}

/** The messages of an API error body: `detail`, or every field's. */
export function errorText(error: unknown): string {
  if (error && typeof error === 'object' && !Array.isArray(error)) {
    const body = error as Record<string, unknown>;
    if (typeof body.detail === 'string') return body.detail;
    return Object.entries(body).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('; ');
  }
  return JSON.stringify(error);
}
