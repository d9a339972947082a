/**
 * The SVG drawing of one rack face for `racks/{id}/elevation/?render=svg`: a legend of unit numbers,
 * one slot per unit, and one box per device at its position and height (half units included),
 * labelled and linked to the device; a device the user may not see is a grey box without a label.
 * Sized like NetBox's: unit_width × unit_height per unit, a legend_width legend, margin_width
 * around. Device-type images are not stored, so include_images changes nothing.
 */
import type { Row } from '../data/registry.js';
import type { Mounted } from './rack_space.js';

/** Sizes of the drawing, in pixels. */
export interface Drawing { unit_width: number; unit_height: number; legend_width: number; margin_width: number }

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function elevationSvg(rack: Row, faceLabel: string, drawing: Drawing, mounted: Mounted[], nested: Map<number, Row>, baseUrl: string): string {
  const { unit_width: uw, unit_height: uh, legend_width: lw, margin_width: mw } = drawing;
  const height = Number(rack.u_height);
  const bottom = Number(rack.starting_unit ?? 1);
  const descending = rack.desc_units === true || rack.desc_units === 1 || rack.desc_units === '1';
  const top = mw + uh; // below the title
  const x0 = mw + lw;
  /** y of the top edge of the half-unit `u` (a device spans from its position upwards) */
  const yOf = (u: number) => (descending ? top + (u - bottom) * uh : top + (bottom + height - u - 0.5) * uh);
  const parts: string[] = [];
  parts.push(`<text class="title" x="${x0 + uw / 2}" y="${mw + uh / 2}" text-anchor="middle" dominant-baseline="middle">${escape(String(rack.name))} (${escape(faceLabel)})</text>`);
  for (let i = 0; i < height; i++) {
    const u = bottom + i;
    const y = descending ? yOf(u) : yOf(u + 0.5);
    parts.push(`<text class="unit" x="${mw + lw / 2}" y="${y + uh / 2}" text-anchor="middle" dominant-baseline="middle">${u}</text>`);
    parts.push(`<rect class="slot" x="${x0}" y="${y}" width="${uw}" height="${uh}" fill="#f5f6f7" stroke="#c0c4c8"/>`);
  }
  for (const d of mounted) {
    const device = nested.get(d.id);
    const h = d.height * uh;
    const y = descending ? yOf(d.position) : yOf(d.position + d.height - 0.5);
    const label = device ? escape(String(device.display ?? device.name ?? d.id)) : '';
    const box = `<rect class="${device ? 'device' : 'blocked'}" x="${x0 + 1}" y="${y + 1}" width="${uw - 2}" height="${h - 2}" fill="${device ? '#9ec5fe' : '#adb5bd'}" stroke="#333"/>`;
    const text = device ? `<text class="device-name" x="${x0 + uw / 2}" y="${y + h / 2}" text-anchor="middle" dominant-baseline="middle">${label}</text>` : '';
    parts.push(device ? `<a href="${escape(`${baseUrl}/dcim/devices/${d.id}/`)}"><title>${label}</title>${box}${text}</a>` : box);
  }
  const width = x0 + uw + mw;
  const total = top + height * uh + mw;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" viewBox="0 0 ${width} ${total}" font-family="sans-serif" font-size="11">${parts.join('')}</svg>`;
}
