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

function piece(value: unknown): Piece | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return { text: value ? 'Yes' : 'No' };
  if (typeof value !== 'object') return { text: String(value) };
  const v = value as Record<string, unknown>;
  if (isChoice(v)) return v.value === null || v.value === '' ? null : { text: String(v.label), badge: BADGES[String(v.value)] ?? 'secondary' };
  if ('display' in v || 'url' in v) {
    // A nested component names its parent first (`ams-sw1 › ge-0/0/1`): its brief form leads with it.
    const parent = Object.values(v).find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && 'url' in x && 'display' in x) as Record<string, unknown> | undefined;
    const own = String(v.display ?? v.name ?? v.id);
    return { text: parent ? `${String(parent.display)} › ${own}` : own, href: pageUrl(v.url) };
  }
  return null;
}

export function cell(value: unknown): Cell {
  if (Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object' && ('url' in v || 'display' in v))) {
    const pieces = value.map(piece).filter((p): p is Piece => !!p);
    return { pieces, empty: !pieces.length };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isChoice(value as Record<string, unknown>) && !('url' in value) && !('display' in value)) {
    const text = JSON.stringify(value, null, 2);
    return { pieces: [], empty: text === '{}', pre: text };
  }
  if (Array.isArray(value)) return { pieces: [], empty: !value.length, pre: JSON.stringify(value, null, 2) };
  const p = piece(value);
  return { pieces: p ? [p] : [], empty: !p };
}

/** Plain text of a value (CSV export). */
export function plain(value: unknown): string {
  const c = cell(value);
  return c.pre ?? c.pieces.map((p) => p.text).join(', ');
}
