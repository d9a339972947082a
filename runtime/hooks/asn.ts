/** ASNs: shown as AS<n>, and 32-bit numbers also in asdot notation (AS65536 (1.0)). */
import type { ModelHooks, Row } from '../data/registry.js';

export function asnDisplay(row: Row): string {
  const asn = Number(row.asn);
  return asn > 65535 ? `AS${asn} (${Math.floor(asn / 65536)}.${asn % 65536})` : `AS${asn}`;
}

export const asn: ModelHooks = { display: asnDisplay };
