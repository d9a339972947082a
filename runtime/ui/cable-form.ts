/**
 * `/dcim/cables/add/`: a cable between two sets of ports. The A side comes filled in from the query
 * (`?a_terminations_type=dcim.interface&a_terminations=<id>`, as a port table's Connect button sends)
 * or is chosen like the B side: the kind of port (the schema's `cabling.peers` of the other side),
 * its owner (`cabling.parent`: a device, a circuit, a power panel), then the ports: when the kind or
 * the owner changes, htmx reloads the form, its ports read from the API's list (`brief`, filtered by
 * the owner). The cable's
 * own fields are the generated form's; saving goes through the API's create view.
 */
import type { ModelEntry } from '../core/types.js';
import { byContentType, modelList } from '../data/registry.js';
import { customFieldsFor } from '../data/customfields.js';
import { callView, errorText } from './api-call.js';
import { buildInputs, formBody, type Option } from './forms.js';
import { label, listUrl, may, readForm, returnUrl } from './page.js';
import { sendPage } from './render.js';
import { forbidden, relationChoices } from './objects.js';
import { cableModel, ownerOf } from './cabling.js';
import { pageUrl } from './values.js';
import type { UiContext } from './context.js';

const LIMIT = '1000';
const SIDES = ['a', 'b'] as const;
type Side = (typeof SIDES)[number];
type Brief = Record<string, any>;

const cabled = (type: string | null | undefined) => (type ? byContentType.get(type) : undefined)?.definition.cabling ? byContentType.get(type!) : undefined;
const parentField = (entry: ModelEntry) => entry.definition.fields[entry.definition.cabling!.parent ?? ''];
const ownerParam = (entry: ModelEntry, side: Side) => `termination_${side}_${entry.definition.cabling!.parent}`;

async function list(ui: UiContext, entry: ModelEntry, query: Record<string, string | string[]>, brief = true): Promise<Brief[]> {
  const q = new URLSearchParams(brief ? { brief: '1', limit: LIMIT } : { limit: LIMIT });
  for (const [k, v] of Object.entries(query)) for (const x of ([] as string[]).concat(v)) q.append(k, x);
  const result = await callView(ui.ctx, ui.api.get(entry)!.list, { query: q, path: `/api/${entry.definition.app}/${entry.definition.endpoint}/` });
  return result.ok ? result.body.results : [];
}

/** The ports of one owner as <option>s; ports with a cable already are shown but cannot be chosen. */
async function portOptions(ui: UiContext, entry: ModelEntry, owner: string, chosen: string[]): Promise<Option[] & { disabled?: boolean }[]> {
  const parent = entry.definition.cabling!.parent;
  if (!/^\d+$/.test(owner) || !parent || !entry.filters[`${parent}_id`]) return [];
  const ports = await list(ui, entry, { [`${parent}_id`]: owner });
  return ports.map((p) => ({ value: String(p.id), label: `${p.display ?? p.name}${p._occupied && !chosen.includes(String(p.id)) ? ' (connected)' : ''}`, selected: chosen.includes(String(p.id)), disabled: !!p._occupied && !chosen.includes(String(p.id)) }));
}

interface SideView {
  side: string; legend: string; fixed: boolean; fixedPorts: { owner: string; ownerUrl?: string; name: string; url?: string; id: string }[];
  type: string; typeOptions: Option[]; ownerName: string; ownerLabel: string; ownerOptions: Option[]; ownerSearch?: string;
  portsName: string; portsLabel: string; options: Option[]; errors: string[]; invalid: boolean;
}

async function sideView(ui: UiContext, side: Side, params: URLSearchParams, kinds: ModelEntry[], fixed: boolean, errors: unknown): Promise<SideView> {
  const chosenType = params.get(`${side}_terminations_type`);
  const entry = kinds.find((k) => k.definition.contentType === chosenType) ?? kinds[0];
  const ports = params.getAll(`${side}_terminations`).filter((x) => /^\d+$/.test(x));
  const pf = parentField(entry);
  const ownerEntry = modelList.find((m) => m.definition.name === pf?.to);
  let owner = params.get(ownerParam(entry, side)) ?? '';
  const fixedPorts: SideView['fixedPorts'] = [];
  if (ports.length && (fixed || !owner)) {
    for (const p of await list(ui, entry, { id: ports }, false)) {
      const o = ownerOf(p);
      if (o && !owner) owner = String(o.id);
      fixedPorts.push({ owner: String(o?.display ?? ''), ownerUrl: pageUrl(o?.url), name: String(p.name ?? p.display), url: pageUrl(p.url), id: String(p.id) });
    }
  }
  const owners = ownerEntry && !fixed ? await list(ui, ownerEntry, {}) : [];
  if (owner && ownerEntry && !fixed && !owners.some((o) => String(o.id) === owner)) owners.unshift(...await list(ui, ownerEntry, { id: owner }));
  const errs = ([] as unknown[]).concat(errors ?? []).map((e) => (typeof e === 'string' ? e : errorText(e)));
  return {
    side,
    legend: `${side.toUpperCase()} side`,
    fixed,
    fixedPorts,
    type: entry.definition.contentType,
    typeOptions: kinds.map((k) => ({ value: k.definition.contentType, label: label(k), selected: k === entry })),
    ownerName: ownerParam(entry, side),
    ownerLabel: pf?.label ?? 'Owner',
    ownerOptions: [{ value: '', label: '---------', selected: !owner }, ...owners.map((o) => ({ value: String(o.id), label: String(o.display ?? o.id), selected: String(o.id) === owner }))],
    ownerSearch: ownerEntry ? `/api/${ownerEntry.definition.app}/${ownerEntry.definition.endpoint}/` : undefined,
    portsName: `${side}_terminations`,
    portsLabel: label(entry),
    options: fixed ? [] : await portOptions(ui, entry, owner, ports),
    errors: errs,
    invalid: errs.length > 0,
  };
}

/** Serves the cable add page (and its port-list fragment); false for any other path. */
export async function cableFormPage(ui: UiContext): Promise<boolean> {
  const cable = cableModel();
  if (!cable || ui.ctx.path !== `${listUrl(cable)}add/`) return false;
  const { ctx, services, page, session } = ui;
  if (!may(ctx, cable, 'add', services) || cable.definition.readOnly) { forbidden(ctx, page); return true; }
  const all = modelList.filter((m) => m.definition.cabling && may(ctx, m, 'view', services));
  const query = ctx.URL.searchParams;
  let params = query;
  let errors: Record<string, any> = {};
  let nonField: string[] = [];
  const customFields = cable.definition.customFields ? await customFieldsFor(services.db, cable) : [];
  if (ctx.method === 'POST') {
    params = await readForm(ctx, session);
    const converted = formBody(cable, params, true, customFields);
    const body: Record<string, unknown> = { ...converted.body };
    for (const side of SIDES) {
      const type = params.get(`${side}_terminations_type`) ?? '';
      body[`${side}_terminations`] = params.getAll(`${side}_terminations`).filter(Boolean).map((id) => ({ object_type: type, object_id: Number(id) }));
    }
    errors = converted.errors;
    if (!Object.keys(errors).length) {
      const result = await callView(ctx, ui.api.get(cable)!.create, { body, path: `/api/${cable.definition.app}/${cable.definition.endpoint}/` });
      if (result.ok) {
        ctx.status = 303;
        ctx.redirect(returnUrl(params, '') || `${listUrl(cable)}${result.body.id}/`);
        return true;
      }
      errors = typeof result.error === 'object' && !Array.isArray(result.error) ? result.error : { non_field_errors: [errorText(result.error)] };
    }
    nonField = [errors.non_field_errors, errors.detail, errors.__all__].flat().filter((x): x is string => typeof x === 'string');
  } else if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const aType = cabled(params.get('a_terminations_type'));
  // Ports named without their owner's select (a Connect button's link, or the form it made): shown, not chosen.
  const aFixed = !!aType && params.getAll('a_terminations').some((x) => /^\d+$/.test(x)) && !params.has(ownerParam(aType, 'a'));
  const a = await sideView(ui, 'a', params, aType && aFixed ? [aType] : all, aFixed, errors.a_terminations);
  const peers = cabled(a.type)?.definition.cabling!.peers ?? [];
  const b = await sideView(ui, 'b', params, all.filter((m) => peers.includes(m.definition.contentType)), false, errors.b_terminations);
  const choices = await relationChoices(ctx, ui.api, cable, true);
  const inputs = buildInputs(cable, true, { object: null, posted: ctx.method === 'POST' ? params : null, initial: ctx.method === 'GET' ? params : undefined, errors, choicesOf: (m) => choices.get(m) ?? [], customFields });
  const back = returnUrl(params, '');
  const view = {
    heading: 'Add cable',
    nonField,
    sides: [a, b],
    inputs,
    action: `${listUrl(cable)}add/`,
    cancelUrl: back || listUrl(cable),
    returnUrl: back,
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  sendPage(ctx, { ...page, title: view.heading }, 'cable-form', view, ctx.method === 'POST' ? 400 : 200);
  return true;
}
