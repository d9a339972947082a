/**
 * Files kept in the database beside the rows that own them (core_stored_file), so that several
 * processes on one PostgreSQL serve the same bytes and a backup holds them. One file per owner
 * (a content type and an id); writing again replaces it.
 */
import type { Knex } from 'knex';
import { whereAny } from './any.js';

export interface StoredFile {
  contentType: string;
  data: Buffer;
}

const TABLE = 'core_stored_file';

export async function putFile(db: Knex, ownerType: string, ownerId: number, file: StoredFile): Promise<void> {
  await db(TABLE).where({ owner_type: ownerType, owner_id: ownerId }).delete();
  await db(TABLE).insert({ owner_type: ownerType, owner_id: ownerId, content_type: file.contentType, size: file.data.length, data: file.data });
}

export async function getFile(db: Knex, ownerType: string, ownerId: number): Promise<StoredFile | null> {
  const row = await db(TABLE).select('content_type', 'data').where({ owner_type: ownerType, owner_id: ownerId }).first();
  return row ? { contentType: String(row.content_type), data: Buffer.from(row.data) } : null;
}

export async function removeFiles(db: Knex, ownerType: string, ownerIds: number[]): Promise<void> {
  if (ownerIds.length) await whereAny(db, db(TABLE).where('owner_type', ownerType), 'owner_id', ownerIds).delete();
}
