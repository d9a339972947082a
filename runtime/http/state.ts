/** What a request carries through the middleware (`ctx.state`), and the services the app is built with. */
import type { Knex } from 'knex';
import type { Auth } from '../auth/authenticate.js';
import type { Peppers } from '../auth/peppers.js';
import type { Config } from '../core/config.js';
import type { Keyed } from './idempotency.js';

export interface State {
  auth: Auth;
  requestId: string;
  body: unknown;
  hasBody: boolean;
  /** authenticated from caches whose version is not confirmed yet: reads only (identify.ts) */
  unconfirmed?: boolean;
  /** a write sent with an Idempotency-Key: its answer is stored in its transaction (idempotency.ts) */
  idempotency?: Keyed;
  /** a page listing the user's own objects of an owned model (their tokens): no view permission needed */
  ownObjects?: boolean;
  /** the database a read uses: the standby when read routing chose it (read-routing.ts) */
  readDb?: Knex;
}

export interface Services {
  db: Knex;
  /** a streaming standby that serves reads (DATABASE_READ_URL) */
  readDb?: Knex;
  config: Config;
  /** the peppers of v2 API tokens (runtime/auth/peppers.ts); absent: v2 tokens are refused */
  peppers?: Peppers;
  /** called after a write commits (the webhook worker listens here) */
  afterCommit?: () => void;
}
