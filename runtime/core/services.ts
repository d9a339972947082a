/** What the app is built with: its databases, its configuration, and what signs tokens. */
import type { Knex } from 'knex';
import type { Config } from './config.js';

/** The peppers of v2 API tokens (runtime/auth/peppers.ts loads them). */
export interface Peppers {
  /** the pepper new v2 tokens are made with */
  current: { id: number; pepper: string };
  /** every pepper that verifies, by id */
  byId: Map<number, string>;
}

export interface Services {
  db: Knex;
  /** a streaming standby that serves reads (DATABASE_READ_URL) */
  readDb?: Knex;
  config: Config;
  /** the peppers of v2 API tokens (auth/peppers.ts); absent: v2 tokens are refused */
  peppers?: Peppers;
  /** called after a write commits (the webhook worker listens here) */
  afterCommit?: () => void;
}
