/**
 * Importing a NetBox database whole (`npm run cli -- import-netbox <url>`): every model NetLedger has,
 * read table by table from the NetBox database (netbox-source.ts) in batches and written with the
 * same ids into the target in one transaction, so a failure leaves the target as it was.
 *
 * The mapping is the schema's: NetLedger's tables and columns carry NetBox's names, so a row's
 * columns are taken by name; what a field stores beside its value is derived as a write would
 * (network bounds, natural sort keys, token digests); generic relations' content type ids become
 * `app.model`; many-to-many links and tags are carried from NetBox's link tables. Passwords keep their
 * Django hashes (verified at login, then rehashed). Relations that form a cycle (a device and its
 * virtual chassis, a region and its parent) are written once every row is in. What the source keeps
 * elsewhere in its newer schemas (4.2's scopes and terminations with their cached site, region, site
 * group and location, 4.3's service parents, the MAC address objects) is taken from there (`fromScope`,
 * the MAC address objects); a 3.7 source's sites, provider networks, devices and virtual machines
 * become those generic relations (the `cached_scope` hook's `afterImport`). Cable paths are traced anew from the imported cables (the models' `afterImport`
 * hooks), as a write would trace them, rather than taken from NetBox's own path table. While the rows
 * go in, counters, search tables, row tallies and plain indexes are set aside and rebuilt once at the
 * end, set-based (bulk-load.ts).
 */
import type { Knex } from 'knex';
import { readFile } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { hooksOf, modelList } from './registry.js';
import { insertRows } from './insert.js';
import { setAsideForBulkLoad } from './bulk-load.js';
import { putFile } from './stored-files.js';
import { imageOwner } from '../core/image-fields.js';
import { readImageHeader } from '../core/image-header.js';
import { isPostgres, updateEach } from './db.js';
import { naturalKey } from './natural.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { keyDigest } from '../core/secrets.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import type { NetboxSource } from './netbox-source.js';
import { conversions, type Conversion } from '../core/conversions.js';
import { rangeColumns, rangesFromPostgres } from '../core/vid-ranges.js';

const BATCH = 2000;

/** Tables NetBox 3.7 names after Django's own apps. */
const TABLE_IN_37: Record<string, string> = { users_user: 'auth_user', users_group: 'auth_group', users_user_groups: 'auth_user_groups' };

/** Tables NetBox 4.x moved to another app (the change log to core). */
const TABLE_IN_4: Record<string, string> = { extras_objectchange: 'core_objectchange' };

/**
 * Columns NetBox 4.x names otherwise, by table: NetLedger's column → the 4.x source's (a rack's `type`
 * is 4.1's `form_factor`, a module type's `attributes` 4.3's `attribute_data`).
 */
const RENAMED_IN_4: Record<string, Record<string, string>> = { dcim_rack: { type: 'form_factor' }, dcim_moduletype: { attributes: 'attribute_data' } };

/**
 * Values NetBox stored in another unit before one of its migrations, by the conversion of the 3.7
 * API that shows them (schema `convert:`): without that migration applied, the source holds what the
 * conversion writes from (NetBox 4.1 turned disk sizes from GB into MB).
 */
const UNITS_SINCE: Record<string, string> = { mb_to_gb: 'virtualization.0040_convert_disk_size' };

/** Fields of a model whose source values are in the older unit, each with the conversion that stores them. */
function olderUnits(entry: ModelEntry, source: NetboxSource): [FieldDefinition, Conversion][] {
  return Object.values(entry.definition.fields).flatMap((f) => Object.values(f.convert ?? {})
    .filter((name): name is string => !!name && !!UNITS_SINCE[name] && !source.migrations.has(UNITS_SINCE[name]) && !!conversions[name]?.write)
    .map((name) => [f, conversions[name]] as [FieldDefinition, Conversion]));
}

/** Tables whose rows NetLedger makes itself: not imported (the change log only with `withChangelog`). */
const NOT_IMPORTED = new Set(['extras_contenttype', 'extras_objectchange', 'extras_webhookdelivery']);
const CHANGELOG = 'extras_objectchange';

export interface ModelSummary { model: string; read: number; imported: number; skipped: number; reason: string }

export class ImportRefused extends Error {}

type Src = Record<string, any>;

/** The source's name of a NetLedger table. */
const sourceTable = (source: NetboxSource, table: string) => (source.version === '3.7' ? TABLE_IN_37[table] : TABLE_IN_4[table]) || table;

/** Models in an order where every relation points at a model written before, but those in a cycle (returned apart). */
function writeOrder(): { order: ModelEntry[]; late: Map<ModelEntry, FieldDefinition[]> } {
  const byName = new Map(modelList.map((e) => [e.definition.name, e]));
  const order: ModelEntry[] = [];
  const late = new Map<ModelEntry, FieldDefinition[]>();
  const state = new Map<ModelEntry, 'visiting' | 'done'>();
  const visit = (e: ModelEntry) => {
    state.set(e, 'visiting');
    for (const f of Object.values(e.definition.fields)) {
      if (f.type !== 'fk') continue;
      const target = byName.get(f.to!);
      if (!target) continue;
      if (target === e || state.get(target) === 'visiting') late.set(e, [...(late.get(e) ?? []), f]);
      else if (!state.has(target)) visit(target);
    }
    state.set(e, 'done');
    order.push(e);
  };
  for (const e of modelList) if (!state.has(e)) visit(e);
  return { order, late };
}

/** The NetLedger row of a NetBox row; throws naming the field when a value cannot be taken. */
function mapRow(entry: ModelEntry, src: Src, source: NetboxSource, lateFields: FieldDefinition[], extra: Src): Src {
  const row: Src = { id: Number(src.id) };
  const has = (c: string) => c in src;
  for (const f of Object.values(entry.definition.fields)) {
    if (['m2m', 'computed', 'alias'].includes(f.type)) continue;
    const column = f.columns[0];
    const value = column in extra ? extra[column] : src[column];
    switch (f.type) {
      case 'fk':
        row[column] = lateFields.includes(f) ? null : value ?? null;
        break;
      case 'generic_fk': {
        // NetBox 3.7 names some content type columns after the API's key (`content_type_id`)
        const typeId = `${f.name}_type_id` in src || !f.typeKey ? src[`${f.name}_type_id`] : src[`${f.typeKey}_id`];
        row[`${f.name}_type`] = typeId === null || typeId === undefined ? null : source.contentTypes.get(Number(typeId)) ?? null;
        row[`${f.name}_id`] = src[`${f.name}_id`] ?? null;
        break;
      }
      case 'ip_prefix': case 'ip_address': {
        if (value === null || value === undefined) { row[column] = null; break; }
        const n = parseNetwork(String(value));
        if (!n) throw new Error(`${f.name}: '${value}' is not a valid network`);
        if (n.length === 0) throw new Error(`${f.name}: '${value}' has a /0 mask, which NetLedger refuses`);
        if (f.type === 'ip_prefix' && n.hostBitsSet) throw new Error(`${f.name}: '${value}' has host bits set`);
        row[column] = f.type === 'ip_prefix' ? networkText(n) : n.text;
        if (f.type === 'ip_address') row[`${f.name}_host`] = n.host;
        row[`${f.name}_first`] = n.first;
        row[`${f.name}_last`] = n.last;
        row[`${f.name}_length`] = n.length;
        row.family = n.family;
        break;
      }
      case 'token_key': {
        const key = String(src.key ?? '');
        if (!/^[0-9a-fA-F]{40}$/.test(key)) throw new Error(`key: not a 40-character hexadecimal key`);
        row[f.columns[0]] = keyDigest(key.toLowerCase());
        row[f.columns[1]] = '*'.repeat(34) + key.slice(-6);
        break;
      }
      case 'image':
        // the file's name once the file is carried (carryFiles)
        row[column] = '';
        break;
      case 'json':
        row[column] = has(column) || column in extra ? JSON.stringify(value ?? null) : JSON.stringify(f.default ?? null);
        break;
      default:
        // NetBox 4 keeps some blank strings as NULL (interfaces' rf_channel): NetLedger's field is blank then
        if ((has(column) || column in extra) && (value !== null || f.nullable)) row[column] = value instanceof Date ? value.toISOString() : value;
        else if (f.default !== undefined) row[column] = f.default;
        else row[column] = f.nullable ? null : f.type === 'boolean' ? false : ['choice', 'string', 'text', 'slug'].includes(f.type) ? '' : null;
        if (f.natural && f.columns[1]) row[f.columns[1]] = naturalKey(row[column]);
    }
  }
  if (entry.definition.customFields) row.custom_field_data = JSON.stringify(src.custom_field_data ?? {});
  if (entry.definition.timestamps) {
    row.created = src.created instanceof Date ? src.created.toISOString() : src.created ?? null;
    row.last_updated = src.last_updated instanceof Date ? src.last_updated.toISOString() : src.last_updated ?? null;
  }
  return row;
}

/** The content type each 3.7 relation names, where 4.x keeps it as a generic relation. */
const GENERIC_PARTS: Record<string, string> = {
  site_id: 'dcim.site', provider_network_id: 'circuits.providernetwork', device_id: 'dcim.device', virtual_machine_id: 'virtualization.virtualmachine',
};

/**
 * A 3.7 column that a NetBox 4.x schema keeps elsewhere: as a cache beside the generic relation
 * (4.2's `_site_id` beside a prefix's scope, `_provider_network_id` beside a circuit termination's
 * termination), else from the generic relation itself (4.3's service parent).
 */
function fromScope(src: Src, source: NetboxSource, kind: string, column: string): Src {
  if (column in src) return {};
  if (`_${column}` in src) return { [column]: src[`_${column}`] };
  const type = src[`${kind}_type_id`];
  if (type === null || type === undefined) return {};
  return { [column]: source.contentTypes.get(Number(type)) === GENERIC_PARTS[column] ? src[`${kind}_id`] : null };
}

/** The object types (`app.model` list) of a row from NetBox's link table of them. */
async function objectTypeLists(source: NetboxSource, table: string, column: string, base: string): Promise<Map<number, string[]> | null> {
  for (const [link, target] of [[`${table}_${column}`, 'contenttype_id'], [`${table}_object_types`, 'objecttype_id'], [`${table}_content_types`, 'contenttype_id']]) {
    const cols = source.tables.get(link);
    if (!cols?.has(target)) continue;
    const owner = `${base}_id`;
    const out = new Map<number, string[]>();
    for await (const rows of source.rows(link, 10_000)) {
      for (const r of rows) {
        const name = source.contentTypes.get(Number(r[target]));
        if (name) out.set(Number(r[owner]), [...(out.get(Number(r[owner])) ?? []), name]);
      }
    }
    return out;
  }
  return null;
}

/** The id columns of NetBox's many-to-many table: (owner, target). */
function linkColumns(cols: Set<string>, owner: string): [string, string] | null {
  const ids = [...cols].filter((c) => c !== 'id' && c.endsWith('_id'));
  if (ids.length !== 2) return null;
  const first = ids.includes(`${owner}_id`) ? `${owner}_id` : ids.includes(`from_${owner}_id`) ? `from_${owner}_id` : null;
  return first ? [first, ids.find((c) => c !== first)!] : null;
}

/**
 * The file `name` (a path under NetBox's MEDIA_ROOT, `media`), kept as the stored file of `owner`
 * (a content type, or an image field's owner type) and `id` when it is there and an image; counted
 * in `files`, with the reason of each one left out in `missing`. Resolves to the bytes kept.
 */
async function carryFile(trx: Knex, owner: string, id: number, name: string, media: string | undefined, files: ModelSummary, missing: string[]): Promise<Buffer | null> {
  if (!name) return null;
  files.read++;
  if (!media) { files.skipped++; return null; }
  const root = resolve(media);
  const path = resolve(root, name);
  let data: Buffer | null = null;
  if (path.startsWith(root + sep)) data = await readFile(path).catch(() => null);
  const info = data && readImageHeader(data);
  if (!data || !info) {
    files.skipped++;
    missing.push(`row ${id}: ${name} ${data ? 'is not a PNG, JPEG, GIF or WebP image' : `is not in ${media}`}`);
    return null;
  }
  await putFile(trx, owner, id, { contentType: info.type, data });
  files.imported++;
  return data;
}

/**
 * The files of one batch of a model's rows, once the rows are in: an image attachment's `image`
 * (with the size an upload records beside it, where the model keeps it), and each image field's
 * file, whose name the field then holds (blank while the file is not here, so the field and its
 * has_<field> filter say what is served).
 */
async function carryFiles(trx: Knex, entry: ModelEntry, batch: Src[], media: string | undefined, files: ModelSummary, missing: string[]): Promise<void> {
  const d = entry.definition;
  const attachment = d.hooks.includes('image_attachment');
  const imageFields = Object.values(d.fields).filter((f) => f.type === 'image');
  for (const src of batch) {
    const id = Number(src.id);
    if (attachment) {
      const data = await carryFile(trx, d.contentType, id, String(src.image ?? ''), media, files, missing);
      if (data && 'image_size' in d.fields) await trx(d.table).where('id', id).update({ image_size: data.length });
    }
    for (const f of imageFields) {
      const name = String(src[f.columns[0]] ?? '');
      if (await carryFile(trx, imageOwner(d.contentType, f.name), id, name, media, files, missing)) await trx(d.table).where('id', id).update({ [f.columns[0]]: basename(name).slice(-100) });
    }
  }
}

/** `fn`, its failure named after `what`. */
async function within<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** NetBox tables whose rows are not carried, and why; Django's and social auth's own tables go unmentioned. */
const LEFT_BEHIND: [RegExp, string][] = [
  [/^(django_|auth_permission$|auth_group_permissions$|auth_user_user_permissions$|social_auth_|taggit_|users_(user|group)_(user_)?permissions$)/, ''],
  [/^dcim_cablepath$/, 'traced anew from the cables'],
  [/^extras_cachedvalue$/, 'the search index is built here'],
  [/^(users_userconfig|extras_dashboard)$/, 'user preferences and dashboards are not carried'],
  [/^(extras_(script|report|scriptmodule)|core_(managedfile|job|autosyncrecord|configrevision))$/, 'NetBox internals (scripts, jobs, configuration revisions)'],
];

/** Source tables with rows that no model here takes, each with its count and the reason. */
async function leftBehind(source: NetboxSource, order: ModelEntry[]): Promise<ModelSummary[]> {
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

export interface ImportOptions {
  replace: boolean;
  /** NetBox's MEDIA_ROOT: image attachments' and image fields' files (device types' images) are carried from it */
  media?: string;
  dryRun: boolean;
  /** carry the change log too (it can be large) */
  withChangelog?: boolean;
  progress?: (line: string) => void;
}

/** Whether the target holds inventory data: any row in a model table but accounts and the change log. */
async function holdsData(db: Knex): Promise<string | null> {
  for (const e of modelList) {
    if (e.definition.app === 'users' || NOT_IMPORTED.has(e.definition.table)) continue;
    if ((await db(e.definition.table).first('id'))) return e.definition.table;
  }
  return null;
}

/** Imports `source` into `db`; the summary per model. Everything in one transaction (rolled back on a dry run). */
export async function importNetbox(db: Knex, source: NetboxSource, options: ImportOptions): Promise<ModelSummary[]> {
  const summary: ModelSummary[] = [];
  const filled = new Set<string>();
  const DRY = Symbol('dry run');
  const { order, late } = writeOrder();
  const imported = (table: string) => !NOT_IMPORTED.has(table) || (!!options.withChangelog && table === CHANGELOG);
  try {
    await db.transaction(async (trx) => {
      const occupied = await holdsData(trx);
      if (occupied && !options.replace) throw new ImportRefused(`the target already holds inventory data (${occupied} has rows): import into an empty database, or pass --replace`);
      if (occupied || options.replace) {
        for (const e of [...order].reverse()) {
          for (const f of Object.values(e.definition.fields)) if (f.type === 'm2m' && f.through) await trx(f.through).delete();
          if (imported(e.definition.table)) await trx(e.definition.table).delete();
        }
        await trx('extras_taggeditem').delete();
        const owners = order.flatMap((e) => [
          ...(e.definition.hooks.includes('image_attachment') ? [e.definition.contentType] : []),
          ...Object.values(e.definition.fields).filter((f) => f.type === 'image').map((f) => imageOwner(e.definition.contentType, f.name)),
        ]);
        if (owners.length) await trx('core_stored_file').whereIn('owner_type', owners).delete();
      }
      const loaded = order.filter((e) => imported(e.definition.table)).flatMap((e) => [e.definition.table, ...Object.values(e.definition.fields).flatMap((f) => (f.through ? [f.through] : []))]);
      const rebuild = await setAsideForBulkLoad(trx, [...new Set([...loaded, 'extras_taggeditem'])]);
      const macs = new Map<number, string>();
      if (source.tables.has('dcim_macaddress')) for await (const rows of source.rows('dcim_macaddress', 10_000)) for (const r of rows) macs.set(Number(r.id), r.mac_address);
      const pending: { table: string; updates: { id: number; values: Src }[] }[] = [];
      const singleLinks: { through: string; from_id: number; to_id: number }[] = [];
      for (const e of order) {
        const d = e.definition;
        const table = sourceTable(source, d.table);
        const cols = source.tables.get(table);
        if (!imported(d.table)) {
          const rows = d.table === CHANGELOG && cols ? await source.count(table) : 0;
          if (rows) summary.push({ model: d.name, read: rows, imported: 0, skipped: rows, reason: 'the change log is carried with --with-changelog' });
          continue;
        }
        if (!cols) { summary.push({ model: d.name, read: 0, imported: 0, skipped: 0, reason: 'not in the source' }); continue; }
        const lateFields = late.get(e) ?? [];
        const types = new Map<string, Map<number, string[]> | null>();
        for (const f of Object.values(d.fields)) {
          if (f.type === 'json' && f.name.endsWith('_types') && !cols.has(f.columns[0])) types.set(f.columns[0], await objectTypeLists(source, table, f.name, d.table.split('_').slice(1).join('_')));
        }
        const units = olderUnits(e, source);
        // a to-many relation the source still holds as its one-to-one column (3.7's contact group_id for 4.3's groups)
        const single = Object.values(d.fields).filter((f) => f.type === 'm2m' && f.through && !source.tables.has(sourceTable(source, f.through)) && cols.has(`${f.name.replace(/s$/, '')}_id`));
        // models whose rows own uploaded images: NetBox names the file (under MEDIA_ROOT) in `image`
        // (image attachments) or in each image field's column (device types' front and rear images)
        const withFile = (d.hooks.includes('image_attachment') && cols.has('image')) || Object.values(d.fields).some((f) => f.type === 'image' && cols.has(f.columns[0]));
        const files = withFile ? { model: `${d.name} files`, read: 0, imported: 0, skipped: 0, reason: '' } : null;
        const missing: string[] = [];
        // image columns NetBox has and no field here takes
        const images = [...cols].filter((c) => /_image$/.test(c) && !(c in d.fields));
        let imagesLeft = 0;
        let read = 0;
        let writing: Promise<void> = Promise.resolve();
        for await (const batch of source.rows(table, BATCH)) {
          const rows: Src[] = [];
          for (const src of batch) {
            read++;
            const extra: Src = {
              ...fromScope(src, source, 'scope', 'site_id'), ...fromScope(src, source, 'termination', 'site_id'), ...fromScope(src, source, 'termination', 'provider_network_id'),
              ...fromScope(src, source, 'parent_object', 'device_id'), ...fromScope(src, source, 'parent_object', 'virtual_machine_id'),
            };
            for (const [column, lists] of types) if (lists) extra[column] = lists.get(Number(src.id)) ?? [];
            for (const c of images) if (src[c]) imagesLeft++;
            if (withFile && 'image_name' in d.fields) extra.image_name = basename(String(src.image ?? '')).slice(-100);
            for (const [column, renamed] of Object.entries(RENAMED_IN_4[d.table] ?? {})) if (!cols.has(column) && cols.has(renamed)) extra[column] = src[renamed];
            if (!cols.has('mac_address') && 'primary_mac_address_id' in src) extra.mac_address = macs.get(Number(src.primary_mac_address_id)) ?? null;
            for (const f of single) {
              const to = src[`${f.name.replace(/s$/, '')}_id`];
              if (to !== null && to !== undefined) singleLinks.push({ through: f.through!, from_id: Number(src.id), to_id: Number(to) });
            }
            for (const [f, conversion] of units) if (src[f.columns[0]] !== null && src[f.columns[0]] !== undefined) extra[f.columns[0]] = conversion.write!(Number(src[f.columns[0]]));
            // VLAN groups: 4.x's VID ranges (an integer range array), or 3.7's one range from min_vid to max_vid
            if ('vid_ranges' in src && src.vid_ranges !== null) Object.assign(extra, rangeColumns(Array.isArray(src.vid_ranges) ? src.vid_ranges.map((r: unknown) => rangesFromPostgres(String(r))[0]) : rangesFromPostgres(String(src.vid_ranges))));
            else if (d.table === 'ipam_vlangroup' && 'min_vid' in src) Object.assign(extra, rangeColumns([[Number(src.min_vid), Number(src.max_vid)]]));
            if (Array.isArray(src.event_types)) for (const [flag, event] of [['type_create', 'object_created'], ['type_update', 'object_updated'], ['type_delete', 'object_deleted'], ['type_job_start', 'job_started'], ['type_job_end', 'job_completed']]) extra[flag] = src.event_types.includes(event);
            try {
              rows.push(mapRow(e, src, source, lateFields, extra));
            } catch (error) {
              throw new Error(`${table} row ${src.id}: ${(error as Error).message}`);
            }
            if (lateFields.length) {
              const values = Object.fromEntries(lateFields.filter((f) => src[f.columns[0]] !== null && src[f.columns[0]] !== undefined).map((f) => [f.columns[0], Number(src[f.columns[0]])]));
              if (Object.keys(values).length) pending.push({ table: d.table, updates: [{ id: Number(src.id), values }] });
            }
          }
          // the previous batch's INSERT runs in the target (PostgreSQL) while this one is read and mapped
          await writing;
          const span = `${table}, rows ${rows[0]?.id}-${rows[rows.length - 1]?.id}`;
          writing = insertRows(trx, d.table, rows).then(() => {}, (error) => { throw new Error(`${span}: ${(error as Error).message.split('\n')[0]}`); });
          writing.catch(() => {});
          if (files) await writing;
          if (files) await carryFiles(trx, e, batch, options.media, files, missing);
          options.progress?.(`${d.name}: ${read} rows`);
        }
        await writing;
        if (read) filled.add(d.table);
        summary.push({ model: d.name, read, imported: read, skipped: 0, reason: '' });
        if (imagesLeft) summary.push({ model: `${d.name} images`, read: imagesLeft, imported: 0, skipped: imagesLeft, reason: `no ${images.join(' or ')} here` });
        if (files?.read) {
          if (!options.media) files.reason = 'files not carried: pass --media <NetBox MEDIA_ROOT>';
          else if (missing.length) files.reason = `${missing.slice(0, 5).join('; ')}${missing.length > 5 ? `; and ${missing.length - 5} more` : ''}`;
          summary.push(files);
        }
      }
      // Links once every model is in: their targets may come later in the order.
      for (const e of order) {
        const d = e.definition;
        for (const f of Object.values(d.fields)) {
          if (f.type !== 'm2m' || !f.through) continue;
          const link = sourceTable(source, f.through);
          const linkCols = source.tables.get(link);
          const pair = linkCols && linkColumns(linkCols, d.table.split('_').slice(1).join('_'));
          if (!pair) continue;
          for await (const batch of source.rows(link, 10_000)) await within(`${link}`, () => insertRows(trx, f.through!, batch.map((r) => ({ from_id: r[pair[0]], to_id: r[pair[1]] }))));
          filled.add(f.through);
        }
      }
      for (const through of new Set(singleLinks.map((l) => l.through))) {
        await within(through, () => insertRows(trx, through, singleLinks.filter((l) => l.through === through).map(({ from_id, to_id }) => ({ from_id, to_id }))));
        filled.add(through);
      }
      // The late references, set-based: one UPDATE per chunk of rows that set the same columns.
      const byColumns = new Map<string, { table: string; updates: { id: number; values: Src }[] }>();
      for (const p of pending) {
        const key = `${p.table} ${Object.keys(p.updates[0].values).join(',')}`;
        const group = byColumns.get(key) ?? byColumns.set(key, { table: p.table, updates: [] }).get(key)!;
        group.updates.push(...p.updates);
      }
      for (const { table, updates } of byColumns.values()) await within(table, () => updateEach(trx, table, updates));
      let tagged = 0;
      for await (const batch of source.rows('extras_taggeditem', 10_000)) {
        await within('extras_taggeditem', () => insertRows(trx, 'extras_taggeditem', batch.map((r) => ({ content_type: source.contentTypes.get(Number(r.content_type_id)), object_id: r.object_id, tag_id: r.tag_id }))));
        tagged += batch.length;
      }
      // config contexts' tag criteria: a link table in NetBox, the generic tag storage here
      if (source.tables.has('extras_configcontext_tags')) {
        for await (const batch of source.rows('extras_configcontext_tags', 10_000)) {
          await within('extras_configcontext_tags', () => insertRows(trx, 'extras_taggeditem', batch.map((r) => ({ content_type: 'extras.configcontext', object_id: r.configcontext_id, tag_id: r.tag_id }))));
          tagged += batch.length;
        }
      }
      if (tagged) filled.add('extras_taggeditem');
      summary.push({ model: 'tags on objects', read: tagged, imported: tagged, skipped: 0, reason: '' });
      await within('indexes and counters', rebuild);
      // what writes keep beside the rows (cable paths) is rebuilt from the rows as imported
      for (const e of order) {
        if (!filled.has(e.definition.table)) continue;
        for (const hook of hooksOf(e)) if (hook.afterImport) await within(`${e.definition.name} (derived data)`, () => hook.afterImport!(trx));
      }
      if (isPostgres(trx)) {
        for (const table of filled) {
          const { rows } = await trx.raw("select pg_get_serial_sequence(?, 'id') as seq", [table]);
          if (rows[0]?.seq) await trx.raw(`select setval(?, greatest((select max(id) from ??), 1))`, [rows[0].seq, table]);
        }
      }
      summary.push(...await leftBehind(source, order));
      if (options.dryRun) throw DRY;
    });
  } catch (error) {
    if (error !== DRY) throw error;
  }
  if (!options.dryRun) {
    // SQLite: statistics from a sample of each index, as the running service keeps them (statistics.ts)
    if (!isPostgres(db)) await db.raw('pragma analysis_limit = 1000');
    for (const table of filled) await db.raw('analyze ??', [table]);
  }
  return summary;
}
