/**
 * Every cable-capable model (`hooks: [cabled]` beside `cabling:` in its YAML): link peers and
 * connected endpoints for a page in a fixed number of queries (read from the stored paths, never
 * traced), the cabled/occupied/connected filters, the mark_connected rule, paths re-traced when a
 * pass-through's mapping changes or a terminated object is deleted, and the trace (endpoints) and
 * paths (pass-throughs) routes in NetBox's shapes.
 */
import type { Knex } from 'knex';
import { model, type ComputedContext, type HookContext, type ModelHooks, type Row } from '../data/registry.js';
import { Renderer, renderRows } from '../data/serialize.js';
import type { ModelEntry } from '../core/types.js';
import { parseBoolean } from '../core/query-values.js';
import { byContentType } from '../data/registry.js';
import { cabledModels, destinations, nodeKey, parseNode, pathsOf, pathsThrough, retrace } from './cable_paths.js';
import { whereAny } from '../data/any.js';
import { isPostgres } from '../data/db.js';

const TERMINATIONS = () => model('CableTermination').definition.table;

function entryOf(ctx: HookContext): ModelEntry {
  if (!ctx.entry?.definition.cabling) throw new Error('the cabled hook serves only models that declare cabling');
  return ctx.entry;
}

/** The model name and id of a node ("<content type>:<id>"), if the model exists. */
function ref(node: string): { model: string; id: number } | null {
  const [type, id] = parseNode(node);
  const entry = byContentType.get(type);
  return entry ? { model: entry.definition.name, id } : null;
}

/** The nested form of each node, as a computed value (rendered with the page). */
function nestedAll(ctx: ComputedContext, nodes: string[]): unknown[] {
  return nodes.map(ref).filter((r) => r !== null).map((r) => ctx.refer(r!.model, r!.id));
}

/** Only an object with a cable has link peers or starts a path. */
const hasCable = (row: Row) => row.cable_id !== null && row.cable_id !== undefined;

// One lookup serves the several fields computed from it on the same page.
const peerLookups = new WeakMap<Row[], Promise<Map<number, string[]>>>();
const pathLookups = new WeakMap<Row[], ReturnType<typeof pathsOf>>();

/** The objects on the other end of each object's cable (one query for the page). */
function linkPeers(rows: Row[], ctx: HookContext): Promise<Map<number, string[]>> {
  let lookup = peerLookups.get(rows);
  if (!lookup) {
    const type = entryOf(ctx).definition.contentType;
    lookup = (async () => {
      const peers = new Map<number, string[]>();
      const ids = rows.filter(hasCable).map((r) => Number(r.id));
      for (let i = 0; i < ids.length; i += 500) {
        const found = await ctx.db(`${TERMINATIONS()} as mine`)
          .join(`${TERMINATIONS()} as far`, (j) => j.on('far.cable_id', 'mine.cable_id').andOn('far.cable_end', '<>', 'mine.cable_end'))
          .select('mine.termination_id as _own', 'far.termination_type', 'far.termination_id')
          .where('mine.termination_type', type).whereIn('mine.termination_id', ids.slice(i, i + 500)).orderBy('far.id');
        for (const r of found) peers.set(Number(r._own), [...(peers.get(Number(r._own)) ?? []), nodeKey(r.termination_type, r.termination_id)]);
      }
      return peers;
    })();
    peerLookups.set(rows, lookup);
  }
  return lookup;
}

/** The stored path of each object: only one with a cable can be a path's origin (none read when none has one). */
function paths(rows: Row[], ctx: HookContext): ReturnType<typeof pathsOf> {
  let lookup = pathLookups.get(rows);
  if (!lookup) {
    lookup = pathsOf(ctx.db, entryOf(ctx).definition.contentType, rows.filter(hasCable).map((r) => Number(r.id)));
    pathLookups.set(rows, lookup);
  }
  return lookup;
}

const column = (entry: ModelEntry, field: string) => entry.definition.fields[field].columns[0];

const perRow = <T>(rows: Row[], value: (row: Row) => T) => new Map(rows.map((r) => [Number(r.id), value(r)]));

/** The nested form of every node of a path, plus traced cables (NetBox's TracedCableSerializer). */
async function renderNodes(db: Knex, entry: ModelEntry, baseUrl: string, nodes: string[]) {
  const renderer = new Renderer(entry, { db, baseUrl });
  for (const node of nodes) {
    const r = ref(node);
    if (r) renderer.cache.need(r.model, r.id);
  }
  await renderer.cache.resolve();
  const nested = (node: string) => { const r = ref(node); return r ? renderer.nested(model(r.model), r.id) : null; };
  const cable = model('Cable');
  const traced = (node: string) => {
    const row = renderer.cache.get(cable.definition.name, parseNode(node)[1]);
    if (!row) return null;
    return {
      id: Number(row.id), url: renderer.url(cable, row.id), type: row.type ?? '', status: row.status, label: row.label ?? '',
      color: row.color ?? '', length: row.length === null || row.length === undefined ? null : Number(row.length), length_unit: row.length_unit ?? '', description: row.description ?? '',
    };
  };
  return { nested, traced };
}

export const cabled: ModelHooks = {
  computed: {
    async link_peers(rows, ctx) {
      const peers = await linkPeers(rows, ctx);
      return perRow(rows, (r) => nestedAll(ctx, peers.get(Number(r.id)) ?? []));
    },
    async link_peers_type(rows, ctx) {
      const peers = await linkPeers(rows, ctx);
      return perRow(rows, (r) => { const first = peers.get(Number(r.id))?.[0]; return first ? parseNode(first)[0] : null; });
    },
    async connected_endpoints(rows, ctx) {
      const found = await paths(rows, ctx);
      return perRow(rows, (r) => { const ends = destinations(found.get(Number(r.id))); return ends.length ? nestedAll(ctx, ends) : null; });
    },
    async connected_endpoints_type(rows, ctx) {
      const found = await paths(rows, ctx);
      return perRow(rows, (r) => { const ends = destinations(found.get(Number(r.id))); return ends.length ? parseNode(ends[0])[0] : null; });
    },
    async connected_endpoints_reachable(rows, ctx) {
      const found = await paths(rows, ctx);
      return perRow(rows, (r) => { const p = found.get(Number(r.id)); return p ? p.isComplete && p.isActive : null; });
    },
  },
  filters: {
    cable_occupied(qb, values) {
      const occupied = parseBoolean('occupied', values[0]);
      if (occupied) qb.where((w) => w.whereNotNull('cable_id').orWhere('mark_connected', true));
      else qb.whereNull('cable_id').where('mark_connected', false);
    },
    path_connected(qb, values, ctx) {
      const connected = parseBoolean('connected', values[0]);
      const active = ctx.db('dcim_cablepath_node as n').join('dcim_cablepath as p', 'p.id', 'n.path_id').select('n.node_id')
        .where('n.node_type', entryOf(ctx).definition.contentType).where('n.step', 0).where('p.is_active', true).where('p.is_complete', true);
      if (connected) qb.whereIn('id', active);
      else qb.whereNotIn('id', active);
    },
  },
  prepare(item) {
    const cable = item.existing?.cable_id ?? null;
    if (item.values.mark_connected === true && cable !== null) item.errors.add('mark_connected', 'Cannot mark as connected with a cable attached.');
  },
  /** A pass-through whose mapping changed (a front port's rear port or position, a circuit's side): its paths go another way. */
  async afterWrite(rows, ctx) {
    const entry = entryOf(ctx);
    const through = entry.definition.cabling!.through;
    if (!through) return false;
    const type = entry.definition.contentType;
    // only a new pass-through, or one whose mapping fields changed, can send a path another way
    const mapping = [through.to, through.position, through.positions, through.group, through.side, ...(through.terminus ?? [])]
      .filter((n): n is string => !!n).map((n) => entry.definition.fields[n].columns[0]);
    const moved = ctx.items.filter((i) => !i.existing || mapping.some((c) => c in i.values && String(i.values[c]) !== String(i.existing![c])));
    if (!moved.length) return false;
    const ids = new Set(moved.map((i) => i.id));
    const nodes = rows.filter((r) => ids.has(Number(r.id))).map((r) => nodeKey(type, r.id));
    const target = through.kind === 'to_position' ? entry.definition.fields[through.to!] : undefined;
    if (target) {
      const targetType = model(target.to!).definition.contentType;
      for (const item of moved) {
        for (const v of [item.values[target.columns[0]], item.existing?.[target.columns[0]]]) if (v !== null && v !== undefined) nodes.push(nodeKey(targetType, v));
      }
    }
    if (through.kind === 'sibling') {
      const group = entry.definition.fields[through.group!].columns[0];
      const siblings = await ctx.db(entry.definition.table).select('id').whereIn(group, rows.filter((r) => ids.has(Number(r.id))).map((r) => r[group]).filter((v) => v !== null));
      for (const s of siblings) nodes.push(nodeKey(type, s.id));
    }
    await retrace(ctx.db, nodes);
    return true;
  },
  /** Deleting terminated objects (or their device) removes their cable ends; the paths through them re-form without them. */
  async beforeDelete(_ids, ctx) {
    if (handledClosures.has(ctx.closure)) return;
    handledClosures.add(ctx.closure);
    const gone = new Set<string>();
    for (const m of cabledModels()) for (const id of ctx.closure.get(m.definition.name) ?? []) gone.add(nodeKey(m.definition.contentType, id));
    const through = [...gone];
    for (const [type, ids] of groupNodes(through)) {
      // the cable ends go, and say which cables they were on (PostgreSQL: in the same statement)
      const ends = () => whereAny(ctx.db, ctx.db(TERMINATIONS()).where('termination_type', type), 'termination_id', ids);
      const cables: Row[] = isPostgres(ctx.db) ? await ends().delete().returning('cable_id') : await ends().distinct('cable_id');
      if (!isPostgres(ctx.db)) await ends().delete();
      for (const cable of new Set(cables.map((c) => Number(c.cable_id)))) through.push(nodeKey(model('Cable').definition.contentType, cable));
    }
    await retrace(ctx.db, through, [], gone);
  },
  actions: {
    /** GET …/trace/: [near ends, cable, far ends] per hop, going on through a bridged endpoint. */
    async trace({ db, entry, row, baseUrl }) {
      const steps: string[][] = [];
      const seen = new Set<string>();
      let origin: string | null = nodeKey(entry.definition.contentType, row.id);
      while (origin && !seen.has(origin)) {
        seen.add(origin);
        const [type, id] = parseNode(origin);
        const path = (await pathsOf(db, type, [id])).get(id);
        if (!path) break;
        steps.push(...path.path);
        while (steps.length % 3) steps.push([]);
        const ends = destinations(path);
        origin = null;
        const originEntry = byContentType.get(type)!;
        const via = originEntry.definition.cabling?.continueVia;
        if (ends.length === 1 && via) {
          const [endType, endId] = parseNode(ends[0]);
          const endEntry = byContentType.get(endType);
          const f = endEntry?.definition.fields[via];
          const next = f ? (await db(endEntry!.definition.table).select(f.columns[0]).where('id', endId).first())?.[f.columns[0]] : null;
          if (next !== null && next !== undefined) origin = nodeKey(model(f!.to!).definition.contentType, next);
        }
      }
      const { nested, traced } = await renderNodes(db, entry, baseUrl, steps.flat());
      const body: unknown[] = [];
      for (let i = 0; i < steps.length; i += 3) {
        if (!steps[i].length) break;
        body.push([steps[i].map(nested), steps[i + 1].length ? traced(steps[i + 1][0]) : [], steps[i + 2].map(nested)]);
      }
      return { status: 200, body };
    },
    /**
     * GET /api/<app>/connected-device/?peer_device=&peer_interface=: the parent (device) of the
     * endpoint at the far end of the named one, when that endpoint is of the same model.
     */
    async connected_device({ db, entry, query, baseUrl }) {
      const peerDevice = query.get('peer_device');
      const peerInterface = query.get('peer_interface');
      if (!peerDevice || !peerInterface) return { status: 400, body: { detail: 'Request must include "peer_device" and "peer_interface" filters.' } };
      const parentField = entry.definition.fields[entry.definition.cabling!.parent!];
      const parent = model(parentField.to!);
      const notFound = { status: 404, body: { detail: 'Not found.' } };
      const owner = await db(parent.definition.table).select('id').where(column(parent, parent.definition.lookup), peerDevice).first();
      if (!owner) return notFound;
      const own = await db(entry.definition.table).select('id').where(parentField.columns[0], owner.id).where(column(entry, entry.definition.lookup), peerInterface).first();
      if (!own) return notFound;
      const ends = destinations((await pathsOf(db, entry.definition.contentType, [Number(own.id)])).get(Number(own.id)));
      const [type, id] = ends.length ? parseNode(ends[0]) : ['', 0];
      if (type !== entry.definition.contentType) return notFound;
      const far = await db(entry.definition.table).select(parentField.columns[0]).where('id', id).first();
      const device = far ? await db(parent.definition.table).where('id', far[parentField.columns[0]]).first() : null;
      if (!device) return notFound;
      return { status: 200, body: (await renderRows(parent, [device], { db, baseUrl }))[0] };
    },
    /** GET …/paths/: every stored path through a pass-through. */
    async paths({ db, entry, row, baseUrl }) {
      const found = await pathsThrough(db, entry.definition.contentType, Number(row.id));
      const { nested } = await renderNodes(db, entry, baseUrl, found.flatMap((p) => p.path.flat()));
      return {
        status: 200,
        body: found.map((p) => ({ id: p.id, path: p.path.map((step) => step.map(nested)), is_active: p.isActive, is_complete: p.isComplete, is_split: p.isSplit })),
      };
    },
  },
};

const handledClosures = new WeakSet<Map<string, Set<number>>>();

function groupNodes(nodes: string[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const node of nodes) {
    const [type, id] = parseNode(node);
    // pushed, not copied: a delete groups thousands of nodes under one type
    const list = map.get(type);
    if (list) list.push(id);
    else map.set(type, [id]);
  }
  return map;
}
