/** What a request carries through the middleware (`ctx.state`) once it is authenticated, as auth/ and every higher layer read it. */
import type { Knex } from 'knex';
import type { Auth } from './authenticate.js';

export interface RequestState {
  auth: Auth;
  requestId: string;
  body: unknown;
  hasBody: boolean;
  /** authenticated from caches whose version is not confirmed yet: reads only (http/identify.ts) */
  unconfirmed?: boolean;
  /** a page listing the user's own objects of an owned model (their tokens): no view permission needed */
  ownObjects?: boolean;
  /** the database a read uses: the standby when read routing chose it (http/read-routing.ts) */
  readDb?: Knex;
}
