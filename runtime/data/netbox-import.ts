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
 *
 * This file runs the import; its parts: where the source keeps each table and column
 * (netbox-names.ts), the order models are written in (netbox-order.ts), one row's mapping
 * (netbox-rows.ts), NetBox's link tables (netbox-links.ts), the files under MEDIA_ROOT
 * (netbox-files.ts), and the source tables left behind (netbox-left-behind.ts).
 */
import type { Knex } from 'knex';
import { basename } from 'node:path';
import { hooksOf, modelList } from './registry.js';
import { insertRows } from './insert.js';
import { setAsideForBulkLoad } from './bulk-load.js';
import { imageOwner } from '../core/image-fields.js';
import { isPostgres, updateEach } from './db.js';
import type { NetboxSource } from './netbox-source.js';
import { rangeColumns, rangesFromPostgres } from '../core/vid-ranges.js';
import { ImportRefused, type ModelSummary, type Src } from './netbox-import-types.js';
import { CHANGELOG, NOT_IMPORTED, RENAMED_IN_4, sourceTable } from './netbox-names.js';
import { writeOrder } from './netbox-order.js';
import { fromScope, mapRow, olderUnits } from './netbox-rows.js';
import { linkColumns, objectTypeLists } from './netbox-links.js';
import { carryFiles } from './netbox-files.js';
import { leftBehind } from './netbox-left-behind.js';

export { ImportRefused, type ModelSummary } from './netbox-import-types.js';

const BATCH = 2000;

/** `fn`, its failure named after `what`. */
async function within<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message.split('\n')[0]}`);
  }
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
        await within('extras_taggeditem', () => insertRows(trx, 'extras_taggeditem', batch.map((r) => ({ object_type: source.contentTypes.get(Number(r.content_type_id)), object_id: r.object_id, tag_id: r.tag_id }))));
        tagged += batch.length;
      }
      // config contexts' tag criteria: a link table in NetBox, the generic tag storage here
      if (source.tables.has('extras_configcontext_tags')) {
        for await (const batch of source.rows('extras_configcontext_tags', 10_000)) {
          await within('extras_configcontext_tags', () => insertRows(trx, 'extras_taggeditem', batch.map((r) => ({ object_type: 'extras.configcontext', object_id: r.configcontext_id, tag_id: r.tag_id }))));
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
