/** What every step of a write shares: the request's context, and the chunk size of set-wise statements. */
import type { Knex } from 'knex';
import type { User } from '../core/user.js';
import type { Peppers } from '../core/services.js';

/** The request a change belongs to, as the change log records it. */
export interface ChangeContext {
  db: Knex;
  user: User | null;
  requestId: string;
  baseUrl: string;
  now: string;
}

/** Everything a write needs to know about its request; `db` is the request's transaction. */
export interface WriteContext extends ChangeContext {
  db: Knex;
  user: User | null;
  now: string;
  /** settings model rules read (from the configuration); absent: NetBox's defaults */
  rules?: RuleSettings;
  /** the API version the write came through (the fields its body has, their per-version defaults); absent (the web interface): every field, the schema's defaults */
  version?: string;
  /** the version's bodies take `add_tags` and `remove_tags` (NetBox 4.6) */
  partialTags?: boolean;
}

/** Configuration that changes what model rules accept. */
export interface RuleSettings {
  /** NetBox's ENFORCE_GLOBAL_UNIQUE (default true): duplicates refused in the global table too */
  enforceGlobalUnique: boolean;
  /** the peppers v2 API tokens are made and checked with (runtime/auth/peppers.ts); absent: no v2 tokens */
  tokenPeppers?: Peppers;
  /** IMAGE_ATTACHMENT_MAX_SIZE: bytes of one uploaded image */
  imageAttachmentMaxSize?: number;
}

/** Rows per set-wise statement: far below every database's bound-parameter limit. */
export const CHUNK = 500;
