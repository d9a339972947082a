/**
 * A cable path drawn as an inline SVG, top to bottom: each stop is its owner (a device, a circuit, a
 * power panel) as a box holding the ports the path arrives at and leaves by, and each cable between
 * two stops is a line in the cable's colour (dashed unless connected) with its label, type, status
 * and length beside it. Every object is a link to its page. The drawing has its own white
 * background, so it reads the same in both themes; no style attributes (the CSP forbids them).
 */
import { choiceSet } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { pageUrl } from './values.js';
import { cableModel, ownerOf } from './cabling.js';

type Obj = Record<string, any>;
/** One hop as the API's trace gives it: near ends, the cable (or nothing), far ends. */
export type Hop = [Obj[], Obj | Obj[] | null, Obj[]];

const WIDTH = 560;
const BOX_X = 60;
const BOX_W = 380;
const HEAD = 30;
const ROW = 34;
const CABLE = 96;
const MID = BOX_X + BOX_W / 2;

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const nameOf = (o: Obj) => String(o.name ?? o.display ?? o.id);

function link(o: Obj | null, body: string): string {
  const href = pageUrl(o?.url);
  return href ? `<a href="${esc(href)}">${body}</a>` : body;
}

/** A choice's label (`cat6` → `CAT6`), from the cable model's own choice set. */
function choiceLabel(cableEntry: ModelEntry | undefined, field: string, value: unknown): string {
  if (value && typeof value === 'object') return String((value as Obj).label ?? (value as Obj).value ?? '');
  const set = cableEntry?.definition.fields[field]?.choices;
  const found = set ? choiceSet(set)?.choices.find((c) => String(c.value) === String(value)) : undefined;
  return found?.label ?? String(value ?? '');
}

interface Stop { owner: Obj | null; top: Obj[]; bottom: Obj[] }

function stopsOf(hops: Hop[]): { stops: Stop[]; cables: (Obj | null)[]; joined: boolean[] } {
  const stops: Stop[] = [];
  const cables: (Obj | null)[] = [];
  const joined: boolean[] = [];
  for (const [near, cable, far] of hops) {
    const owner = near[0] ? ownerOf(near[0]) : null;
    const last = stops[stops.length - 1];
    // The far end of the previous hop and this hop's near end on one owner (a patch panel): one box.
    if (last && !last.bottom.length && last.owner?.url === owner?.url) last.bottom = near;
    else {
      if (last) { cables.push(null); joined.push(false); }
      stops.push({ owner, top: [], bottom: near });
    }
    const c = Array.isArray(cable) ? cable[0] ?? null : cable;
    cables.push(c);
    joined.push(true);
    stops.push({ owner: far[0] ? ownerOf(far[0]) : null, top: far, bottom: [] });
  }
  return { stops, cables, joined };
}

function ports(list: Obj[], owner: Obj | null, y: number): string {
  const w = (BOX_W - 20) / list.length;
  return list.map((p, i) => {
    const x = BOX_X + 10 + i * w;
    const own = ownerOf(p);
    const text = own && owner && own.url !== owner.url ? `${nameOf(own)} › ${nameOf(p)}` : nameOf(p);
    return `<g class="nl-trace-port">${link(p, `<rect x="${x + 2}" y="${y}" width="${w - 4}" height="${ROW - 8}" rx="4" fill="#e8f0fb" stroke="#206bc4"/><text x="${x + w / 2}" y="${y + 18}" text-anchor="middle" fill="#0b3d75" font-size="13">${esc(clip(text, Math.max(6, Math.floor(w / 8))))}</text>`)}</g>`;
  }).join('');
}

function stopSvg(stop: Stop, y: number): { svg: string; height: number } {
  const rows = (stop.top.length ? 1 : 0) + (stop.bottom.length ? 1 : 0);
  if (!stop.top.length && !stop.bottom.length) {
    return { svg: `<g class="nl-trace-end"><rect x="${BOX_X}" y="${y}" width="${BOX_W}" height="${HEAD + 6}" rx="6" fill="#fff" stroke="#9aa0ac" stroke-dasharray="6 4"/><text x="${MID}" y="${y + 23}" text-anchor="middle" fill="#49505c" font-size="14">Not connected</text></g>`, height: HEAD + 6 };
  }
  const height = HEAD + rows * ROW + 4;
  const name = stop.owner ? nameOf(stop.owner) : '';
  let svg = `<g class="nl-trace-stop"><rect x="${BOX_X}" y="${y}" width="${BOX_W}" height="${height}" rx="6" fill="#f1f3f6" stroke="#616876"/>`;
  svg += `<text x="${MID}" y="${y + 20}" text-anchor="middle" fill="#1d273b" font-size="15" font-weight="bold">${link(stop.owner, esc(clip(name, 44)))}</text>`;
  let py = y + HEAD;
  if (stop.top.length) { svg += ports(stop.top, stop.owner, py); py += ROW; }
  if (stop.bottom.length) svg += ports(stop.bottom, stop.owner, py);
  return { svg: `${svg}</g>`, height };
}

function cableSvg(cable: Obj | null, joined: boolean, y: number, cableEntry: ModelEntry | undefined): string {
  if (!joined) return `<line x1="${MID}" y1="${y}" x2="${MID}" y2="${y + CABLE}" stroke="#9aa0ac" stroke-width="2" stroke-dasharray="2 4"/>`;
  if (!cable) return '';
  const color = /^[0-9a-f]{6}$/i.test(String(cable.color ?? '')) ? `#${cable.color}` : '#49505c';
  const status = typeof cable.status === 'object' ? cable.status?.value : cable.status;
  const dash = status && status !== 'connected' ? ' stroke-dasharray="10 6"' : '';
  const lines: string[] = [];
  const type = choiceLabel(cableEntry, 'type', cable.type);
  const statusLabel = status ? choiceLabel(cableEntry, 'status', cable.status) : '';
  const length = cable.length !== null && cable.length !== undefined && cable.length !== '' ? `${cable.length} ${choiceLabel(cableEntry, 'length_unit', cable.length_unit)}`.trim() : '';
  for (const t of [[type, statusLabel].filter(Boolean).join(' · '), length]) if (t) lines.push(t);
  const title = cable.label || cable.display || `#${cable.id}`;
  let svg = `<g class="nl-trace-cable"><line x1="${MID}" y1="${y}" x2="${MID}" y2="${y + CABLE}" stroke="${color}" stroke-width="5"${dash}/>`;
  svg += `<text x="${MID + 16}" y="${y + CABLE / 2 - 10}" fill="#1d273b" font-size="14" font-weight="bold">${link(cable, `Cable ${esc(clip(String(title), 30))}`)}</text>`;
  lines.forEach((t, i) => { svg += `<text x="${MID + 16}" y="${y + CABLE / 2 + 8 + i * 17}" fill="#49505c" font-size="13">${esc(clip(t, 34))}</text>`; });
  return `${svg}</g>`;
}

/** The SVG of a path (the API's trace hops); `label` names it for assistive technology. */
export function traceSvg(hops: Hop[], label: string): string {
  const { stops, cables, joined } = stopsOf(hops);
  let y = 10;
  let body = '';
  stops.forEach((stop, i) => {
    const s = stopSvg(stop, y);
    body += s.svg;
    y += s.height;
    if (i < cables.length) {
      body += cableSvg(cables[i], joined[i], y, cableModel());
      y += CABLE;
    }
  });
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="nl-trace-svg" role="group" aria-label="${esc(label)}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif"><rect width="${WIDTH}" height="${height}" fill="#ffffff"/>${body}</svg>`;
}
