/**
 * The peppers v2 API tokens' digests are keyed with (NetBox's API_TOKEN_PEPPERS): the configured
 * ones, by id, the highest making new tokens. With none configured the service uses one it generated
 * on its first start and keeps in the database (`netledger_settings`), so every process and every
 * node on that database verifies the same tokens; the first process to store it wins, the others
 * read it back. That generated pepper has id 0 and keeps verifying the tokens made with it after
 * API_TOKEN_PEPPERS is set, unless the configuration names an id 0 of its own.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Peppers } from '../core/services.js';

const TABLE = 'netledger_settings';
const GENERATED = 'api_token_pepper';
export const GENERATED_PEPPER_ID = 0;

export type { Peppers } from '../core/services.js';

/** The stored generated pepper, made and stored first when `create` and there is none yet. */
async function generatedPepper(db: Knex, create: boolean): Promise<string | null> {
  const read = async () => ((await db(TABLE).where('name', GENERATED).first('value')) as { value?: string } | undefined)?.value ?? null;
  const stored = await read();
  if (stored || !create) return stored;
  await db(TABLE).insert({ name: GENERATED, value: randomBytes(48).toString('base64url') }).onConflict('name').ignore();
  return read();
}

/** The peppers this service signs and verifies with (after migrations: the settings table exists). */
export async function loadPeppers(db: Knex, configured: Map<number, string>): Promise<Peppers> {
  const byId = new Map(configured);
  const generated = await generatedPepper(db, configured.size === 0);
  if (generated && !byId.has(GENERATED_PEPPER_ID)) byId.set(GENERATED_PEPPER_ID, generated);
  const ids = configured.size ? [...configured.keys()] : [GENERATED_PEPPER_ID];
  const id = Math.max(...ids);
  return { current: { id, pepper: byId.get(id)! }, byId };
}
