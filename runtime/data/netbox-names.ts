/**
 * Where a NetBox database keeps what NetLedger has, by the source's version: the tables NetBox 3.7
 * names after Django's apps, those 4.x moved, the columns 4.x renamed; and the tables whose rows
 * NetLedger makes itself, which are not imported.
 */
import type { NetboxSource } from './netbox-source.js';

/** Tables NetBox 3.7 names after Django's own apps. */
const TABLE_IN_37: Record<string, string> = { users_user: 'auth_user', users_group: 'auth_group', users_user_groups: 'auth_user_groups' };

/** Tables NetBox 4.x moved to another app (the change log to core). */
const TABLE_IN_4: Record<string, string> = { extras_objectchange: 'core_objectchange' };

/**
 * Columns NetBox 4.x names otherwise, by table: NetLedger's column → the 4.x source's (a rack's `type`
 * is 4.1's `form_factor`, a module type's `attributes` 4.3's `attribute_data`).
 */
export const RENAMED_IN_4: Record<string, Record<string, string>> = { dcim_rack: { type: 'form_factor' }, dcim_moduletype: { attributes: 'attribute_data' } };

/** Tables whose rows NetLedger makes itself: not imported (the change log only with `withChangelog`). */
export const NOT_IMPORTED = new Set(['extras_contenttype', 'extras_taggeditem', 'extras_objectchange', 'extras_webhookdelivery']);
export const CHANGELOG = 'extras_objectchange';

/** The source's name of a NetLedger table. */
export const sourceTable = (source: NetboxSource, table: string) => (source.version === '3.7' ? TABLE_IN_37[table] : TABLE_IN_4[table]) || table;
