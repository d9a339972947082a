/**
 * The source tables the NetBox import (netbox-import.ts) does not carry, for its summary: each one
 * with rows that no model here takes, with its count and the reason, so nothing is left silently.
 */
import type { ModelEntry } from '../core/types.js';
import type { NetboxSource } from './netbox-source.js';
import type { ModelSummary } from './netbox-import-types.js';
import { sourceTable } from './netbox-names.js';

/** NetBox tables whose rows are not carried, and why; Django's and social auth's own tables go unmentioned. */
const LEFT_BEHIND: [RegExp, string][] = [
  [/^(django_|auth_permission$|auth_group_permissions$|auth_user_user_permissions$|social_auth_|taggit_|users_(user|group)_(user_)?permissions$)/, ''],
  [/^dcim_cablepath$/, 'traced anew from the cables'],
  [/^extras_cachedvalue$/, 'the search index is built here'],
  [/^(users_userconfig|extras_dashboard)$/, 'user preferences and dashboards are not carried'],
  [/^(extras_(script|report|scriptmodule)|core_(managedfile|job|autosyncrecord|configrevision))$/, 'NetBox internals (scripts, jobs, configuration revisions)'],
];

/** Source tables with rows that no model here takes, each with its count and the reason. */
export async function leftBehind(source: NetboxSource, order: ModelEntry[]): Promise<ModelSummary[]> {
  const taken = new Set(['extras_taggeditem', 'extras_configcontext_tags', 'dcim_macaddress']);
  for (const e of order) {
    const table = sourceTable(source, e.definition.table);
    taken.add(table);
    for (const f of Object.values(e.definition.fields)) {
      if (f.through) taken.add(sourceTable(source, f.through));
      if (f.type === 'json' && f.name.endsWith('_types')) for (const suffix of [f.name, 'object_types', 'content_types']) taken.add(`${table}_${suffix}`);
    }
  }
  const out: ModelSummary[] = [];
  for (const table of [...source.tables.keys()].sort()) {
    if (taken.has(table)) continue;
    const reason = LEFT_BEHIND.find(([pattern]) => pattern.test(table))?.[1] ?? 'no model here';
    if (reason === '') continue;
    const rows = await source.count(table);
    if (rows) out.push({ model: table, read: rows, imported: 0, skipped: rows, reason });
  }
  return out;
}
