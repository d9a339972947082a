/**
 * How an API value looks on a page: nested objects become links to their pages, choices their
 * labels, lists a comma-separated run, JSON pretty-printed. Pages never show raw API URLs except in
 * the browsable API.
 */

export interface Piece {
  text: string;
  href?: string;
  /** Tabler badge colour, for choices */
  badge?: string;
}

export interface Cell {
  pieces: Piece[];
  empty: boolean;
  /** multi-line text (JSON) goes in a <pre> */
  pre?: string;
  /** an image field's file, shown as the image (its URL) */
  image?: string;
}

/** The web page of an API URL: `http://host/api/dcim/sites/3/` → `/dcim/sites/3/`. */
export function pageUrl(apiUrl: unknown): string | undefined {
  if (typeof apiUrl !== 'string') return undefined;
  const m = /^(?:https?:\/\/[^/]+)?\/api(\/[a-z-]+\/[a-z-]+\/\d+\/)$/.exec(apiUrl);
  return m ? m[1] : undefined;
}

const BADGES: Record<string, string> = {
  active: 'green', succeeded: 'green', planned: 'cyan', queued: 'blue', staged: 'blue', retrying: 'yellow',
  failed: 'red', offline: 'gray', decommissioning: 'orange', deprecated: 'red', reserved: 'cyan', available: 'green',
  create: 'green', update: 'blue', delete: 'red',
};

function isChoice(v: Record<string, unknown>): boolean {
  return 'value' in v && 'label' in v && Object.keys(v).length === 2;
}

/** The pieces of one value: a nested component is its owner's link, then its own (`ams-sw1` `ge-0/0/1`). */
function pieces(value: unknown): Piece[] {
  if (value === null || value === undefined || value === '') return [];
  if (typeof value === 'boolean') return [{ text: value ? 'Yes' : 'No' }];
  if (typeof value !== 'object') return [{ text: String(value) }];
  const v = value as Record<string, unknown>;
  if (isChoice(v)) return v.value === null || v.value === '' ? [] : [{ text: String(v.label), badge: BADGES[String(v.value)] ?? 'secondary' }];
  // A cable termination ({object_type, object_id, object}): the object it names.
  if ('object_type' in v && 'object' in v && v.object && typeof v.object === 'object') return pieces(v.object);
  if ('display' in v || 'url' in v) {
    const parent = Object.entries(v).find(([k, x]) => k !== 'cable' && x !== null && typeof x === 'object' && !Array.isArray(x) && 'url' in x && 'display' in x)?.[1] as Record<string, unknown> | undefined;
    const own = { text: String(v.display ?? v.name ?? v.id), href: pageUrl(v.url) };
    return parent ? [{ text: String(parent.display), href: pageUrl(parent.url) }, { text: '›' }, own] : [own];
  }
  return [];
}

const nestedLike = (v: unknown) => v !== null && typeof v === 'object' && ('url' in v || 'display' in v || ('object_type' in v && 'object' in v));

export function cell(value: unknown): Cell {
  if (Array.isArray(value) && value.length && value.every(nestedLike)) {
    const out = value.flatMap((v, i) => (i ? [{ text: ',' }, ...pieces(v)] : pieces(v)));
    return { pieces: out, empty: !out.length };
  }
  if (Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object' && ('url' in v || 'display' in v))) return { pieces: [], empty: true };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isChoice(value as Record<string, unknown>) && !('url' in value) && !('display' in value)) {
    const text = JSON.stringify(value, null, 2);
    return { pieces: [], empty: text === '{}', pre: text };
  }
  if (Array.isArray(value)) return { pieces: [], empty: !value.length, pre: JSON.stringify(value, null, 2) };
  const p = pieces(value);
  return { pieces: p, empty: !p.length };
}

/** Plain text of a value (CSV export). */
export function plain(value: unknown): string {
  const c = cell(value);
  return c.pre ?? c.pieces.map((p) => p.text).join(' ').replace(/ ,/g, ',');
}
