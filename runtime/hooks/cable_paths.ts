/**
 * Cable paths: traced from the schema's `cabling:` metadata when a write changes the cabling, inside
 * its transaction, and stored (dcim_cablepath and its node index), so reads never trace.
 *
 * A path starts at the endpoints of one cable end (its origins) and alternates near ends, cable, far
 * ends. At a pass-through it goes on by the pass-through's kind: `to_position` (a front port to its
 * rear port, remembering the position), `from_positions` (a rear port back out to the front port at
 * the remembered position), `sibling` (a circuit termination to the other side of its circuit). It
 * ends at an endpoint (complete), at a `terminus` of a sibling (complete), where nothing is
 * connected (incomplete), or where it would fan out (split). Any cable not connected makes it
 * inactive. Nodes are "<content type>:<id>".
 */
import type { Knex } from 'knex';
import { byContentType, choiceSet, model, modelList, type Row } from '../data/registry.js';
import { readByIds, whenAnyRow } from '../data/reads.js';
import { insertRows } from '../data/insert.js';
import type { ModelEntry } from '../core/types.js';

const CHUNK = 500;
/** Ids per read of a page's paths (the bound-parameter limit is far above it). */
const PAGE_CHUNK = 5000;
/** Paths traced side by side (retrace): their reads shared, a step at a time. */
const TRACE_WINDOW = 1000;

export interface TracedPath {
  path: string[][];
  isActive: boolean;
  isComplete: boolean;
  isSplit: boolean;
}

export interface StoredPath extends TracedPath {
  id: number;
}

export const nodeKey = (type: string, id: unknown): string => `${type}:${Number(id)}`;

export function parseNode(node: string): [string, number] {
  const at = node.lastIndexOf(':');
  return [node.slice(0, at), Number(node.slice(at + 1))];
}

/** The cable-capable model of a content type (undefined for any other). */
export function cabledModel(type: string): ModelEntry | undefined {
  const entry = byContentType.get(type);
  return entry?.definition.cabling ? entry : undefined;
}

export const cabledModels = (): ModelEntry[] => modelList.filter((m) => m.definition.cabling);

const terminationTable = () => model('CableTermination').definition.table;
const cableEntry = () => model('Cable');

const unique = <T>(list: T[]): T[] => [...new Set(list)];
const column = (entry: ModelEntry, field: string) => entry.definition.fields[field].columns[0];

/** The model whose `to_position` pass-through points at `entry` (front ports for rear ports). */
function frontOf(entry: ModelEntry): ModelEntry | undefined {
  return cabledModels().find((m) => {
    const t = m.definition.cabling!.through;
    return t?.kind === 'to_position' && m.definition.fields[t.to!].to === entry.definition.name;
  });
}

async function chunked(ids: number[], load: (part: number[]) => Promise<Row[]>): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await load(ids.slice(i, i + CHUNK))));
  return out;
}

/** Rows by the number in one column. */
function groupBy(rows: Row[], key: string): Map<number, Row[]> {
  const map = new Map<number, Row[]>();
  for (const r of rows) {
    const list = map.get(Number(r[key]));
    if (list) list.push(r);
    else map.set(Number(r[key]), [r]);
  }
  return map;
}

/** Rows in id order. */
const byId = (rows: Row[]): Row[] => rows.sort((a, b) => Number(a.id) - Number(b.id));

/** Traces paths over the current rows, treating the `gone` nodes (about to be deleted) as absent. */
export class Tracer {
  constructor(private db: Knex, private gone: Set<string> = new Set()) {}

  private present(type: string, rows: Row[]): Row[] {
    return rows.filter((r) => !this.gone.has(nodeKey(type, r.id)));
  }

  /** Reads of one kind asked for in the same turn, by key, each with the ids it wants. */
  private pending = new Map<string, { ids: Set<number>; rows: Promise<Map<number, Row[]>> }>();

  /**
   * The rows `load` reads for `ids` and for the ids every other trace running beside this one asks
   * of the same `kind` in the same turn, by the number in their column `key`: one read (a chunk of
   * ids per statement) serves them all, so traces run side by side (retrace) cost a read per step
   * rather than per path. Callers take their own rows from the result.
   */
  private together(kind: string, ids: number[], key: string, load: (part: number[]) => Promise<Row[]>): Promise<Map<number, Row[]>> {
    let batch = this.pending.get(kind);
    if (!batch) {
      const fresh = { ids: new Set<number>(), rows: Promise.resolve(new Map<number, Row[]>()) };
      fresh.rows = new Promise((resolve) => setImmediate(resolve)).then(async () => {
        this.pending.delete(kind);
        return groupBy(await chunked([...fresh.ids], load), key);
      });
      this.pending.set(kind, fresh);
      batch = fresh;
    }
    for (const id of ids) batch.ids.add(id);
    return batch.rows;
  }

  /** Rows of a cabled model in the order of `ids`. */
  async rows(type: string, ids: number[]): Promise<Row[]> {
    const entry = cabledModel(type) ?? byContentType.get(type);
    if (!entry || !ids.length) return [];
    const loaded = await this.together(`rows ${type}`, ids, 'id', (part) => this.db(entry.definition.table).whereIn('id', part));
    return this.present(type, unique(ids).flatMap((id) => loaded.get(id) ?? []));
  }

  /** Cable terminations of these objects, on cables that stay: a chunk of ids after another, each chunk's in id order. */
  async terminationsOf(type: string, ids: number[]): Promise<Row[]> {
    if (!ids.length) return [];
    const byObject = await this.together(`terminations ${type}`, ids, 'termination_id', (part) => this.db(terminationTable()).where('termination_type', type).whereIn('termination_id', part));
    const rows: Row[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) rows.push(...byId(unique(ids.slice(i, i + CHUNK)).flatMap((id) => byObject.get(id) ?? [])));
    return rows.filter((ct) => !this.gone.has(nodeKey(cableEntry().definition.contentType, ct.cable_id)));
  }

  /** Every termination of these cables (in id order), with each cable's status. */
  private async cables(cableIds: number[]): Promise<{ ends: Row[]; status: Map<number, string> }> {
    const [cables, byCable] = await Promise.all([
      this.together('cables', cableIds, 'id', (part) => this.db(cableEntry().definition.table).select('id', 'status').whereIn('id', part)),
      this.together('cable ends', cableIds, 'cable_id', (part) => this.db(terminationTable()).whereIn('cable_id', part)),
    ]);
    const ends = byId(unique(cableIds).flatMap((id) => byCable.get(id) ?? []));
    const status = new Map(unique(cableIds).flatMap((id) => cables.get(id) ?? []).map((c: Row) => [Number(c.id), String(c.status)]));
    return { ends: ends.filter((ct: Row) => !this.gone.has(nodeKey(ct.termination_type, ct.termination_id))), status };
  }

  async trace(originType: string, originIds: number[]): Promise<TracedPath | null> {
    const cableType = cableEntry().definition.contentType;
    const path: string[][] = [];
    const stack: number[][] = [];
    let isComplete = false;
    let isActive = true;
    let isSplit = false;
    let type = originType;
    let rows = await this.rows(originType, originIds);
    while (rows.length) {
      const local = await this.terminationsOf(type, rows.map((r) => Number(r.id)));
      const cableIds = unique(local.map((ct) => Number(ct.cable_id)));
      // several cables meeting where one position was expected: the path fans out
      if (cableIds.length > 1 && stack.length && rows.length !== stack[stack.length - 1].length) { isSplit = true; break; }
      path.push(rows.map((r) => nodeKey(type, r.id)));
      if (!local.length) {
        if (path.length === 1) return null;
        break;
      }
      if (unique(local.map((ct) => Number(ct.termination_id))).length < rows.length) { isComplete = false; isSplit = true; }
      path.push(cableIds.map((id) => nodeKey(cableType, id)));
      const { ends, status } = await this.cables(cableIds);
      if (cableIds.some((id) => status.get(id) !== 'connected')) isActive = false;
      const nearEnd = new Map(local.map((ct) => [Number(ct.cable_id), ct.cable_end]));
      const far = ends.filter((ct) => nearEnd.has(Number(ct.cable_id)) && ct.cable_end !== nearEnd.get(Number(ct.cable_id)));
      const farTypes = unique(far.map((ct) => String(ct.termination_type)));
      if (farTypes.length > 1) { isComplete = false; isSplit = true; break; }
      const farType = farTypes[0];
      const farRows = farType ? await this.rows(farType, far.map((ct) => Number(ct.termination_id))) : [];
      path.push(farRows.map((r) => nodeKey(farType, r.id)));
      if (!farRows.length) break;
      const farEntry = cabledModel(farType)!;
      const cabling = farEntry.definition.cabling!;
      if (cabling.role === 'endpoint') { isComplete = true; break; }
      const through = cabling.through!;
      if (through.kind === 'to_position') {
        const target = model(farEntry.definition.fields[through.to!].to!);
        const targetType = target.definition.contentType;
        const targets = await this.rows(targetType, farRows.map((r) => Number(r[column(farEntry, through.to!)])).filter((id) => id > 0));
        const positions = target.definition.cabling?.through?.positions;
        if (targets.length > 1 || (targets[0] && positions && Number(targets[0][column(target, positions)]) > 1)) {
          stack.push(farRows.map((r) => Number(r[column(farEntry, through.position!)])));
        }
        type = targetType;
        rows = targets;
      } else if (through.kind === 'from_positions') {
        const front = frontOf(farEntry);
        if (!front) break;
        const ft = front.definition.cabling!.through!;
        const toColumn = column(front, ft.to!);
        const positionColumn = column(front, ft.position!);
        const q = this.db(front.definition.table);
        if (farRows.length === 1 && Number(farRows[0][column(farEntry, through.positions!)]) === 1) {
          q.where(toColumn, farRows[0].id).where(positionColumn, 1);
        } else if (farRows.length > 1 && stack.length) {
          const positions = [...stack.pop()!];
          // each far end takes the positions from the last remembered one backwards
          q.where((w) => { for (const r of farRows) w.orWhere((x) => x.where(toColumn, r.id).where(positionColumn, positions.pop() ?? 0)); });
        } else if (stack.length) {
          q.where(toColumn, farRows[0].id).whereIn(positionColumn, stack.pop()!);
        } else { isSplit = true; break; }
        type = front.definition.contentType;
        rows = this.present(type, await q.orderBy('id'));
      } else {
        if (farRows.length > 1) { isSplit = true; break; }
        const sideField = farEntry.definition.fields[through.side!];
        const sides = choiceSet(sideField.choices!).choices.map((c) => String(c.value));
        const here = farRows[0];
        const other = sides.find((s) => s !== String(here[sideField.columns[0]]));
        const sibling = this.present(farType, await this.db(farEntry.definition.table)
          .where(column(farEntry, through.group!), here[column(farEntry, through.group!)])
          .where(sideField.columns[0], other ?? '').whereNot('id', here.id).orderBy('id').limit(1))[0];
        if (!sibling) break;
        const terminus = (through.terminus ?? []).map((n) => farEntry.definition.fields[n]).find((f) => sibling[f.columns[0]] !== null && sibling[f.columns[0]] !== undefined);
        if (terminus) {
          path.push([nodeKey(farType, sibling.id)], [nodeKey(model(terminus.to!).definition.contentType, sibling[terminus.columns[0]])]);
          isComplete = true;
          break;
        }
        type = farType;
        rows = [sibling];
      }
    }
    return { path, isActive, isComplete, isSplit };
  }
}

/** Node keys grouped by content type: type → ids. */
function byType(nodes: string[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const node of unique(nodes)) {
    const [type, id] = parseNode(node);
    // pushed, not copied: a delete groups thousands of nodes under one type
    const list = map.get(type);
    if (list) list.push(id);
    else map.set(type, [id]);
  }
  return map;
}

/** Ids of the stored paths that pass through any of these nodes (or, with `step`, hold them at that step). */
async function pathIdsWith(db: Knex, nodes: string[], step?: number): Promise<number[]> {
  const ids = new Set<number>();
  for (const [type, list] of byType(nodes)) {
    const rows = await chunked(list, (part) => {
      const q = db('dcim_cablepath_node').distinct('path_id').where('node_type', type).whereIn('node_id', part);
      if (step !== undefined) q.where('step', step);
      return q;
    });
    for (const r of rows) ids.add(Number(r.path_id));
  }
  return [...ids];
}

/** The paths and their nodes, a chunk of paths per pair of multi-row INSERTs. */
async function store(db: Knex, paths: TracedPath[]): Promise<void> {
  for (let i = 0; i < paths.length; i += CHUNK) {
    const part = paths.slice(i, i + CHUNK);
    const ids = await insertRows(db, 'dcim_cablepath', part.map((p) => ({
      origin_type: parseNode(p.path[0][0])[0], path: JSON.stringify(p.path), is_active: p.isActive, is_complete: p.isComplete, is_split: p.isSplit,
    })), true);
    const nodes = part.flatMap((p, k) => p.path.flatMap((step, at) => step.map((node) => { const [type, id] = parseNode(node); return { path_id: ids[k], node_type: type, node_id: id, step: at }; })));
    await insertRows(db, 'dcim_cablepath_node', nodes);
  }
}

/**
 * Re-traces every stored path through `through` (cables, terminations, pass-throughs whose mapping
 * changed) and traces new paths from `origins` (endpoints that just got a cable). Origins are grouped
 * by cable end, as NetBox does: the endpoints on one end of one cable share a path.
 */
export async function retrace(db: Knex, through: string[], origins: string[] = [], gone: Set<string> = new Set()): Promise<void> {
  const stale = unique([...await pathIdsWith(db, through), ...await pathIdsWith(db, origins, 0)]);
  const starts = new Set(origins);
  for (let i = 0; i < stale.length; i += CHUNK) {
    for (const r of await db('dcim_cablepath_node').select('node_type', 'node_id').whereIn('path_id', stale.slice(i, i + CHUNK)).where('step', 0)) starts.add(nodeKey(r.node_type, r.node_id));
  }
  for (let i = 0; i < stale.length; i += CHUNK) await db('dcim_cablepath').whereIn('id', stale.slice(i, i + CHUNK)).delete();
  const tracer = new Tracer(db, gone);
  const traces: [string, number[]][] = [];
  for (const [type, ids] of byType([...starts].filter((n) => !gone.has(n)))) {
    if (cabledModel(type)?.definition.cabling?.role !== 'endpoint') continue;
    const groups = new Map<string, number[]>();
    for (const ct of await tracer.terminationsOf(type, ids)) {
      const key = `${ct.cable_id}:${ct.cable_end}`;
      const group = groups.get(key);
      if (group) group.push(Number(ct.termination_id));
      else groups.set(key, [Number(ct.termination_id)]);
    }
    for (const group of groups.values()) traces.push([type, group]);
  }
  // a window of paths traced side by side, their reads shared (Tracer.together), stored in order
  for (let i = 0; i < traces.length; i += TRACE_WINDOW) {
    const traced = await Promise.all(traces.slice(i, i + TRACE_WINDOW).map(([type, group]) => tracer.trace(type, group)));
    await store(db, traced.filter((p): p is TracedPath => !!p));
  }
}

/** Traces the path of every cabled endpoint from scratch (after an import brought cables in without writes). */
export async function traceAll(db: Knex): Promise<void> {
  const endpointTypes = cabledModels().filter((m) => m.definition.cabling!.role === 'endpoint').map((m) => m.definition.contentType);
  const origins: string[] = [];
  let lastId = 0;
  for (;;) {
    const rows = await db(terminationTable()).select('id', 'termination_type', 'termination_id').whereIn('termination_type', endpointTypes).where('id', '>', lastId).orderBy('id').limit(PAGE_CHUNK);
    if (!rows.length) break;
    for (const r of rows) origins.push(nodeKey(r.termination_type, r.termination_id));
    lastId = Number(rows[rows.length - 1].id);
  }
  await db('dcim_cablepath').delete();
  await retrace(db, [], origins);
}

function readPath(row: Row): StoredPath {
  const flag = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';
  return { id: Number(row.id), path: JSON.parse(row.path), isActive: flag(row.is_active), isComplete: flag(row.is_complete), isSplit: flag(row.is_split) };
}

/** The stored path of each of these endpoints (one query for a whole page). */
export async function pathsOf(db: Knex, type: string, ids: number[]): Promise<Map<number, StoredPath>> {
  const out = new Map<number, StoredPath>();
  // A page's worth at once, compiled once (readByIds): a 1000-interface page took two reads in sequence.
  for (let i = 0; i < ids.length; i += PAGE_CHUNK) {
    const rows = await readByIds(db, `paths-of:${type}`, ids.slice(i, i + PAGE_CHUNK), (part) => whenAnyRow(db, db('dcim_cablepath_node as n').join('dcim_cablepath as p', 'p.id', 'n.path_id')
      .select('n.node_id as _origin', 'p.*').where('n.node_type', type).whereIn('n.node_id', part).where('n.step', 0), 'dcim_cablepath_node'));
    for (const r of rows) out.set(Number(r._origin), readPath(r));
  }
  return out;
}

/** Every stored path that passes through one object. */
export async function pathsThrough(db: Knex, type: string, id: number): Promise<StoredPath[]> {
  const ids = await pathIdsWith(db, [nodeKey(type, id)]);
  if (!ids.length) return [];
  return (await db('dcim_cablepath').whereIn('id', ids).orderBy('id')).map(readPath);
}

/** The far ends of a complete path (NetBox's destinations); none otherwise. */
export function destinations(path: StoredPath | undefined): string[] {
  return path?.isComplete ? path.path[path.path.length - 1] : [];
}
