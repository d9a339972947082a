/**
 * A cable's page draws it: both ends (each port with its owner) and the cable between them with its
 * label, type, status, colour and length, as the trace pages draw a hop, plus a table of the ends.
 */
import type { Context } from 'koa';
import type { ModelEntry } from '../../core/types.js';
import type { Services } from '../../http/views.js';
import { renderTemplate } from '../render.js';
import type { ApiViews } from '../api-views.js';
import type { Panel } from '../panel.js';
import { traceSvg } from '../trace-svg.js';
import { ownerOf } from '../cabling.js';
import { pageUrl } from '../values.js';

type Obj = Record<string, any>;

const objects = (terminations: unknown): Obj[] => (Array.isArray(terminations) ? terminations.map((t) => t?.object).filter((o) => o && typeof o === 'object') : []);

export async function cableEnds(_ctx: Context, _services: Services, _api: ApiViews, _entry: ModelEntry, cable: Obj): Promise<Panel | null> {
  const a = objects(cable.a_terminations);
  const b = objects(cable.b_terminations);
  if (!a.length && !b.length) return null;
  const side = (name: string, list: Obj[]) => ({
    name,
    ends: list.map((o) => { const owner = ownerOf(o); return { owner: owner?.display ?? '', ownerUrl: pageUrl(owner?.url), port: o.display ?? o.name, url: pageUrl(o.url) }; }),
  });
  const svg = traceSvg([[a, cable, b]], `Cable ${cable.display ?? cable.id} and its ends`);
  return { title: 'Cable', html: renderTemplate('cable-ends', { svg, sides: [side('A side', a), side('B side', b)] }), wide: true };
}
