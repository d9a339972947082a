/** What a page of the web interface is handed: the request, the services, the page's frame, the session and the API's views. */
import type { Context } from 'koa';
import type { Services } from '../http/state.js';
import type { Session } from '../auth/sessions.js';
import type { Page } from './page.js';
import type { ApiViews } from './api-views.js';

export interface UiContext {
  ctx: Context;
  services: Services;
  page: Page;
  session: Session | null;
  api: ApiViews;
}
