/**
 * `racks/{id}/elevation/`, as NetBox 3.7 serves it: the rack's units in half-unit steps (U42.5, U42,
 * … U1, top first unless the rack numbers downwards), each with the device occupying it on the asked
 * face (full-depth devices on both), paginated like a list; or, with `render=svg`, a drawing of that
 * face. Parameters are checked as NetBox's elevation serializer does (a 400 naming the parameter):
 * `face`, `render`, `exclude` (a device id), `expand_devices` (false: a device only on its bottom
 * unit), `include_images`, `unit_width`, `unit_height`, `legend_width`, `margin_width`, `q` (units whose id
 * or name contains it). Devices the user may not see leave their units occupied but show no device.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, Row } from '../data/registry.js';
import { choiceSet, model } from '../data/registry.js';
import { renderRows } from '../data/serialize.js';
import { errors } from '../core/errors.js';
import { applyConstraints, constraintFor, loadGrants } from '../auth/permissions.js';
import { loadRacks, steps, units, type Mounted } from './rack_space.js';
import { elevationSvg, type Drawing } from './rack_svg.js';

/** NetBox's defaults for the drawing (RACK_ELEVATION_DEFAULT_* and the legend and margin constants). */
const DRAWING: Drawing = { unit_width: 220, unit_height: 22, legend_width: 30, margin_width: 15 };

export interface ElevationParams {
  face: { value: string; label: string };
  render: 'json' | 'svg';
  exclude: number | null;
  expandDevices: boolean;
  includeImages: boolean;
  q: string | null;
  drawing: Drawing;
}

function integer(query: URLSearchParams, name: string, fallback: number | null): number | null {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) throw errors.badFilter(name, 'A valid integer is required.');
  return Number(raw);
}

function boolean(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on', 't', 'y'].includes(v)) return true;
  if (['false', '0', 'no', 'off', 'f', 'n'].includes(v)) return false;
  throw errors.badFilter(name, 'Must be a valid boolean.');
}

function choice(query: URLSearchParams, name: string, values: string[], fallback: string): string {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!values.includes(raw)) throw errors.badFilter(name, `"${raw}" is not a valid choice.`);
  return raw;
}

export function elevationParams(query: URLSearchParams): ElevationParams {
  const faces = choiceSet('device-face').choices.map((c) => ({ value: String(c.value), label: c.label }));
  const face = choice(query, 'face', faces.map((f) => f.value), 'front');
  const drawing = { ...DRAWING };
  for (const key of Object.keys(DRAWING) as (keyof Drawing)[]) drawing[key] = integer(query, key, DRAWING[key])!;
  return {
    face: faces.find((f) => f.value === face)!,
    render: choice(query, 'render', ['json', 'svg'], 'json') as 'json' | 'svg',
    exclude: integer(query, 'exclude', null),
    expandDevices: boolean(query, 'expand_devices', true),
    includeImages: boolean(query, 'include_images', true),
    q: query.get('q') || null,
    drawing,
  };
}

/** `U42` for a whole unit, `U42.5` for the upper half of one. */
export function unitName(u: number): string {
  return `U${u}`;
}

/** The ids of the devices among `ids` the user may view (every one for a superuser or no user). */
async function visibleDevices(db: Knex, user: ActionContext['user'], ids: number[]): Promise<Set<number>> {
  if (!ids.length || !user || user.isSuperuser) return new Set(ids);
  const entry = model('Device');
  const constraint = constraintFor(await loadGrants(db, user), entry.definition.contentType, 'view');
  if (constraint === 'denied') return new Set();
  const q = db(entry.definition.table).select('id').whereIn('id', ids);
  if (constraint) applyConstraints(q, db, entry, constraint, user);
  return new Set((await q).map((r: Row) => Number(r.id)));
}

export interface ElevationUnit {
  id: number;
  name: string;
  face: { value: string; label: string };
  device: Row | null;
  occupied: boolean;
  display: string;
}

/** The units of one face with their devices, and the mounted devices shown on that face. */
export async function elevationUnits(ctx: ActionContext, params: ElevationParams): Promise<{ units: ElevationUnit[]; mounted: Mounted[]; nested: Map<number, Row> }> {
  const { db, row, baseUrl, user } = ctx;
  const space = (await loadRacks(db, [Number(row.id)])).get(Number(row.id))!;
  // NetBox leaves out 0U devices and those at position 0
  const mounted = space.devices.filter((d) => d.id !== params.exclude && d.position > 0 && d.height > 0 && (d.face === params.face.value || d.fullDepth));
  const visible = await visibleDevices(db, user, mounted.map((d) => d.id));
  const deviceEntry = model('Device');
  const shownIds = mounted.filter((d) => visible.has(d.id)).map((d) => d.id);
  const rendered = shownIds.length ? await renderRows(deviceEntry, await db(deviceEntry.definition.table).whereIn('id', shownIds), { db, baseUrl, brief: true }) : [];
  const nested = new Map(rendered.map((d) => [Number(d.id), d]));
  const byUnit = new Map(units(row).map((u) => [u, { id: u, name: unitName(u), face: params.face, device: null as Row | null, occupied: false, display: unitName(u) }]));
  for (const d of mounted) {
    for (const u of params.expandDevices ? steps(d.position, d.height) : [d.position]) {
      const unit = byUnit.get(u);
      if (!unit) continue;
      unit.occupied = true;
      unit.device = nested.get(d.id) ?? null;
    }
  }
  return { units: [...byUnit.values()], mounted, nested };
}

export async function rackElevation(ctx: ActionContext): Promise<ActionResult> {
  const params = elevationParams(ctx.query);
  const { units: all, mounted, nested } = await elevationUnits(ctx, params);
  if (params.render === 'svg') {
    return { status: 200, type: 'image/svg+xml', body: elevationSvg(ctx.row, params.face.label, params.drawing, mounted, nested, ctx.baseUrl) };
  }
  // NetBox matches q against the unit's number as text ("42.0", "42.5") and against its name ("U42")
  const listed = params.q ? all.filter((u) => (Number.isInteger(u.id) ? `${u.id}.0` : String(u.id)).includes(params.q!) || u.name.includes(params.q!)) : all;
  const { page } = ctx;
  const results = page.limit === null ? listed.slice(page.offset) : listed.slice(page.offset, page.offset + page.limit);
  const links = page.links(`${ctx.baseUrl}/api/dcim/racks/${ctx.row.id}/elevation/`, ctx.query, listed.length);
  return { status: 200, body: { count: listed.length, ...links, results } };
}
