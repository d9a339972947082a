/**
 * Fields, filters and actions that a model-level flag stands for, added to the model's own before the
 * cross-file checks, so that every later step sees them as if the YAML had spelt them out.
 */
import type { ModelFile } from '../generated/schema-format.js';

type Field = ModelFile['fields'][string];

/** Inserts fields before the named one, or at the end when it is absent. */
function insertFields(spec: ModelFile, before: string | undefined, added: [string, Field][]): void {
  const entries = Object.entries(spec.fields);
  const at = before ? entries.findIndex(([name]) => name === before) : -1;
  entries.splice(at < 0 ? entries.length : at, 0, ...added);
  spec.fields = Object.fromEntries(entries);
}

/**
 * `owner: true`: NetBox 4.5's owner of an object, a relation that exists from 4.6 on, placed where
 * NetBox's serializers show it (before `comments`), with its group's filters.
 */
export function addOwner(spec: ModelFile): void {
  insertFields(spec, 'comments', [['owner', { type: 'fk', to: 'Owner', nullable: true, on_delete: 'protect', since: '4.0' } as Field]]);
  spec.filters = { ...spec.filters, owner_group_id: { path: 'owner.group', since: '4.0' }, owner_group: { path: 'owner.group', by: 'name', since: '4.0' } } as ModelFile['filters'];
}

/**
 * `synced_data`: the content comes from a data file (NetBox's SyncedDataMixin). Writing `data_file`
 * copies the file in (the model's own hook says into which field); POST /sync/ copies it again.
 */
export function addSyncedData(spec: ModelFile): void {
  const before = typeof spec.synced_data === 'object' ? spec.synced_data.before : undefined;
  insertFields(spec, before, [
    ['data_source', { type: 'fk', to: 'DataSource', nullable: true, on_delete: 'protect', help_text: 'Remote data source (set from data_file)' } as Field],
    ['data_path', { type: 'string', max_length: 1000, default: '', read_only: true, help_text: 'Path to remote file (relative to data source root)' } as unknown as Field],
    ['data_file', { type: 'fk', to: 'DataFile', nullable: true, on_delete: 'set_null', help_text: 'The data file the content is copied from' } as Field],
    ['data_synced', { type: 'datetime', nullable: true, read_only: true, label: 'Date synced' } as Field],
  ]);
  spec.actions = { sync: { methods: ['POST'], hook: 'sync_data_file' }, ...spec.actions } as ModelFile['actions'];
}
