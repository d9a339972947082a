/**
 * A VLAN group's VID ranges (NetBox 4.0): a list of [lowest, highest] VIDs, inclusive, stored as
 * JSON and kept sorted; the checks a write of them passes; the columns derived from them (3.7's
 * min_vid and max_vid, 4.6's total_vlan_ids); and the text a message shows them as (1-99, 200-299).
 */
type Row = Record<string, unknown>;

export type VidRange = [number, number];

export const VID_MIN = 1;
export const VID_MAX = 4094;

/** The stored ranges of a group's row; a row from before the ranges has its min and max as one. */
export function rangesOf(row: Row): VidRange[] {
  const raw = row.vid_ranges;
  const parsed = typeof raw === 'string' ? JSON.parse(raw) : raw;
  if (Array.isArray(parsed) && parsed.length) return parsed.map((r: number[]) => [Number(r[0]), Number(r[1])]);
  return [[Number(row.min_vid ?? VID_MIN), Number(row.max_vid ?? VID_MAX)]];
}

/** PostgreSQL's text of an integer range array (NetBox 4's stored ranges: {"[1,100)","[200,300)"}) as inclusive ranges. */
export function rangesFromPostgres(text: string): VidRange[] {
  return [...text.matchAll(/([[(])\s*(-?\d+)\s*,\s*(-?\d+)\s*([\])])/g)].map((m) => [
    Number(m[2]) + (m[1] === '(' ? 1 : 0),
    Number(m[3]) - (m[4] === ')' ? 1 : 0),
  ]);
}

/** The ranges a write gave, sorted, or the problem with them (as NetBox words it). */
export function parseRanges(value: unknown): VidRange[] | string {
  if (!Array.isArray(value)) return `Expected a list of items but got type "${value === null ? 'null' : typeof value}".`;
  if (!value.length) return 'At least one VID range is required.';
  const out: VidRange[] = [];
  for (const r of value) {
    if (!Array.isArray(r) || r.length !== 2) return 'Ranges must be specified in the form (lower, upper).';
    if (!r.every((n) => typeof n === 'number' && Number.isInteger(n))) return 'Range boundaries must be defined as integers.';
    const [lo, hi] = r as VidRange;
    if (lo < VID_MIN) return `Starting VLAN ID in range (${lo}) cannot be less than ${VID_MIN}`;
    if (hi > VID_MAX) return `Ending VLAN ID in range (${hi}) cannot exceed ${VID_MAX}`;
    if (lo > hi) return `Ending VLAN ID in range must be greater than or equal to the starting VLAN ID (${lo}-${hi})`;
    out.push([lo, hi]);
  }
  out.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < out.length; i++) if (out[i][0] <= out[i - 1][1]) return 'Ranges cannot overlap.';
  return out;
}

/** The columns that follow from the ranges (the ranges themselves as the list, to be stored as JSON). */
export function rangeColumns(ranges: VidRange[]): { vid_ranges: VidRange[]; min_vid: number; max_vid: number; total_vlan_ids: number } {
  return {
    vid_ranges: ranges,
    min_vid: ranges[0][0],
    max_vid: Math.max(...ranges.map((r) => r[1])),
    total_vlan_ids: ranges.reduce((n, [lo, hi]) => n + hi - lo + 1, 0),
  };
}

export const inRanges = (ranges: VidRange[], vid: number): boolean => ranges.some(([lo, hi]) => vid >= lo && vid <= hi);

export const rangesText = (ranges: VidRange[]): string => ranges.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)).join(', ');
