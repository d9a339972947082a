/**
 * What the pages about cables read from the schema's `cabling:` blocks: the model cables are, the
 * model of a nested object, and the owner (device, circuit, power panel) of a cabled object.
 */
import { modelList } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { pageUrl } from './values.js';

type Obj = Record<string, any>;

let byPage: Map<string, ModelEntry> | null = null;

/** The model of a nested object, from its page URL (`/dcim/interfaces/3/`). */
export function modelOfNested(o: Obj | null | undefined): ModelEntry | undefined {
  const url = pageUrl(o?.url);
  byPage ??= new Map(modelList.map((m) => [`${m.definition.app}/${m.definition.endpoint}`, m]));
  return url ? byPage.get(url.split('/').slice(1, 3).join('/')) : undefined;
}

/** The owner of a cabled object (`cabling.parent`: its device, circuit, power panel). */
export function ownerOf(o: Obj): Obj | null {
  const parent = modelOfNested(o)?.definition.cabling?.parent;
  const v = parent ? o[parent] : null;
  return v && typeof v === 'object' ? v : null;
}

/** The model cables are: the one every cabled model's `cable` relation points to. */
export function cableModel(): ModelEntry | undefined {
  const name = modelList.find((m) => m.definition.cabling)?.definition.fields.cable?.to;
  return name ? modelList.find((m) => m.definition.name === name) : undefined;
}
