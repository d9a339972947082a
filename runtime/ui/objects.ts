/**
 * One object's pages: `/<id>/` (every field, relations as links, tags, custom fields, related
 * objects as counts linking to filtered lists, the change-log and journal tabs), `/add/` and
 * `/<id>/edit/` (generated forms, saved through the API's write path), `/<id>/delete/`.
 */
import type { Context } from 'koa';
import { byContentType, modelList } from '../data/registry.js';
import { apiVersions } from '../../generated/versions.js';
import { typeKeyIn } from '../core/versions.js';
import { customFieldsFor } from '../data/customfields.js';
import type { ModelEntry } from '../core/types.js';
import { callView, errorText } from './api-call.js';
import { listCount } from './list-count.js';
import type { ApiViews } from './api-views.js';
import { buildInputs, formBody, formFields } from './forms.js';
import { cell } from './values.js';
import { label, listUrl, may, readForm, returnUrl, type Page } from './page.js';
import { expandBodies } from './patterns.js';

import { sendPage } from './render.js';
import { CHANGE_TYPE, changesView } from './changes.js';
import { customLinks } from './custom-links.js';
import type { Services, State } from '../http/views.js';
import type { Session } from '../auth/sessions.js';
import { tabLinks, tabPage, tabsOf } from './tabs.js';
import { renderPanels } from './panels.js';
import { cableModel } from './cabling.js';
import { hasRenderConfig, renderConfigView, RENDER_CONFIG_TAB } from './render-config.js';

const JOURNAL_TYPE = 'extras.journalentry';
/** The range patterns an add form's help shows, by the field's type (a name, an address). */
const PATTERN_EXAMPLES: Record<string, string> = { name: 'Gi1/0/[1-48], [ge,xe]-0/0/[0-3]', ip_address: '192.0.2.[1-254]/24, 2001:db8::[1-9]/64' };
const CHOICE_LIMIT = 100;
const HIDDEN = new Set(['id', 'url', 'display', 'tags', 'custom_fields']);

/** The object as the API shows it, or null (not found or not visible). */
async function fetchObject(ctx: Context, api: ApiViews, entry: ModelEntry, id: string): Promise<Record<string, any> | null> {
  const result = await callView(ctx, api.get(entry)!.retrieve, { params: { id }, path: `${listUrl(entry)}${id}/` });
  return result.ok ? result.body : null;
}

/** Other models' relations to this one, each a count linking to the filtered list. */
async function relatedCounts(ctx: Context, api: ApiViews, entry: ModelEntry, id: number): Promise<{ label: string; href: string; count: number }[]> {
  const out: { label: string; href: string; count: number }[] = [];
  for (const other of modelList) {
    for (const f of Object.values(other.definition.fields)) {
      if (f.type !== 'fk' || f.to !== entry.definition.name || f.name === 'parent' || f.filter === false) continue;
      const param = `${f.name}_id`;
      if (!other.filters[param]) continue;
      const count = await listCount(ctx, api, other, new URLSearchParams({ [param]: String(id) }));
      if (!count) continue;
      out.push({ label: `${label(other, true)} (${f.label.toLowerCase()})`, href: `${listUrl(other)}?${param}=${id}`, count });
    }
  }
  return out;
}

/** The human label of a field of the API representation (a count: the counted model's plural). */
function fieldLabel(entry: ModelEntry, key: string): string {
  const d = entry.definition;
  if (d.fields[key]) return d.fields[key].label;
  const counted = d.counts?.[key] ? modelList.find((m) => m.definition.name === d.counts[key].model) : undefined;
  if (counted) return label(counted, true);
  return key.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** The add form's query that copies an object's `clone` fields: a relation by id, a choice by value, a list by each item. */
function cloneQuery(fields: string[], object: Record<string, any>): URLSearchParams {
  const query = new URLSearchParams();
  const plainValue = (v: any): string | null => v === null || v === undefined || v === '' ? null
    : typeof v === 'object' ? (v.id ?? v.value ?? null) === null ? null : String(v.id ?? v.value) : String(v);
  for (const name of fields) {
    const value = object[name];
    for (const v of Array.isArray(value) ? value : [value]) {
      const text = plainValue(v);
      if (text !== null) query.append(name, text);
    }
  }
  return query;
}

export async function detailPage(ctx: Context, services: Services, page: Page, entry: ModelEntry, api: ApiViews, id: string, tab: string): Promise<void> {
  const object = tab === 'object' ? await fullObject(ctx, api, entry, id) : await fetchObject(ctx, api, entry, id);
  if (!object) return notFound(ctx, page);
  const uiTab = tabsOf(entry).find((t) => t.path === tab);
  const d = entry.definition;
  const url = `${listUrl(entry)}${id}/`;
  const changeEntry = byContentType.get(CHANGE_TYPE);
  const journalEntry = byContentType.get(JOURNAL_TYPE);
  const view: Record<string, unknown> = {
    display: object.display ?? `${label(entry)} ${id}`,
    plural: label(entry, true),
    singular: label(entry),
    listUrl: listUrl(entry),
    url,
    canChange: !d.readOnly && may(ctx, entry, 'change', services),
    canDelete: !d.readOnly && may(ctx, entry, 'delete', services),
    cloneUrl: d.clone && !d.readOnly && may(ctx, entry, 'add', services) ? `${listUrl(entry)}add/?${cloneQuery(d.clone, object)}` : null,
    hasChangelog: !!changeEntry && d.changelog && may(ctx, changeEntry, 'view', services),
    hasJournal: !!journalEntry && d.changelog && may(ctx, journalEntry, 'view', services),
    tabObject: tab === 'object',
    tabChangelog: tab === 'changelog',
    tabJournal: tab === 'journal',
    // a model with a config context (devices, virtual machines) shows it rendered, as NetBox's tab
    hasConfigContext: !!d.fields.config_context,
    tabConfigContext: tab === 'config-context',
    // a model with a render-config action: its config template's output, as NetBox's tab
    hasRenderConfig: hasRenderConfig(ctx, services, entry),
    tabRenderConfig: tab === RENDER_CONFIG_TAB,
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  if (d.cabling) Object.assign(view, cableButtons(ctx, services, entry, object));
  const mark = await bookmarkOf(ctx, services, api, entry, id);
  if (mark) Object.assign(view, { canBookmark: true, bookmarked: mark.id !== null });
  if (uiTab) return tabPage(ctx, services, page, entry, api, object, uiTab, view);
  view.tabs = await tabLinks(ctx, services, api, entry, object, null);
  if (tab === 'object') {
    // A generic relation shows as the linked object; its type and id columns say nothing more.
    const parts = new Set(Object.values(d.fields).filter((f) => f.type === 'generic_fk' && f.name in object).flatMap((f) => [`${f.name}_type`, `${f.name}_id`]));
    // an image field shows its image, from the API route that serves the file
    const shown = (k: string) => (d.fields[k]?.type === 'image' && typeof object[k] === 'string' ? { pieces: [], empty: false, image: String(object[k]) } : cell(object[k]));
    view.fields = Object.keys(object).filter((k) => !HIDDEN.has(k) && !parts.has(k) && !(d.fields[k]?.type === 'alias')).map((k) => ({ label: fieldLabel(entry, k), ...shown(k) }));
    view.panels = await renderPanels(ctx, services, api, entry, object);
    view.tagged = d.tags;
    view.tags = object.tags ?? [];
    const cfs = Object.entries((object.custom_fields ?? {}) as Record<string, unknown>);
    view.hasCustomFields = cfs.length > 0;
    view.customFields = cfs.map(([k, v]) => ({ label: k.replace(/_/g, ' '), ...cell(v) }));
    view.related = await relatedCounts(ctx, api, entry, Number(id));
    view.links = await customLinks(ctx, api, entry, object);
    view.hasRelated = (view.related as unknown[]).length > 0;
  } else if (tab === 'config-context') {
    view.configContext = JSON.stringify(object.config_context ?? {}, null, 2);
    view.localContext = object.local_context_data === null || object.local_context_data === undefined ? null : JSON.stringify(object.local_context_data, null, 2);
  } else if (tab === RENDER_CONFIG_TAB && view.hasRenderConfig) {
    const rendered = await renderConfigView(ctx, services, entry, object);
    if (rendered === true) return;
    Object.assign(view, rendered);
  } else if (tab === 'changelog' && changeEntry && view.hasChangelog) {
    Object.assign(view, await changesView(ctx, api.get(changeEntry)!.list, new URLSearchParams({ changed_object_type: d.contentType, changed_object_id: id })));
  } else if (tab === 'journal' && journalEntry && view.hasJournal) {
    const result = await callView(ctx, api.get(journalEntry)!.list, { query: new URLSearchParams({ assigned_object_type: d.contentType, assigned_object_id: id, limit: '100' }) });
    view.journal = result.ok ? (result.body.results as any[]).map((j) => ({ created: String(j.created ?? '').replace('T', ' ').slice(0, 19), by: j.created_by?.display ?? '—', kind: j.kind?.label ?? '', comments: j.comments })) : [];
    view.canJournal = may(ctx, journalEntry, 'add', services);
    view.journalInputs = buildInputs(journalEntry, true, { object: null, posted: null, errors: {}, choicesOf: () => [], customFields: [] })
      .filter((i) => i.name === 'kind' || i.name === 'comments');
  }
  sendPage(ctx, { ...page, title: String(view.display) }, 'detail', view);
}

/** A cabled object's page: Trace, and Connect while it has no cable. */
function cableButtons(ctx: Context, services: Services, entry: ModelEntry, object: Record<string, any>): { traceUrl: string; connectUrl: string | null } {
  const cable = cableModel();
  const free = !object.cable && !object.mark_connected && !!cable && !cable.definition.readOnly && may(ctx, cable, 'add', services);
  const here = `${listUrl(entry)}${object.id}/`;
  return {
    traceUrl: `${here}trace/`,
    connectUrl: free ? `${listUrl(cable!)}add/?${new URLSearchParams({ a_terminations_type: entry.definition.contentType, a_terminations: String(object.id), return_url: here })}` : null,
  };
}

const BOOKMARK_TYPE = 'extras.bookmark';

/** The user's bookmark of this object (id null: not bookmarked); null when the user may not keep bookmarks. */
async function bookmarkOf(ctx: Context, services: Services, api: ApiViews, entry: ModelEntry, id: string): Promise<{ id: number | null } | null> {
  const bookmark = byContentType.get(BOOKMARK_TYPE);
  const user = (ctx.state as State).auth?.user;
  if (!bookmark || !user || entry === bookmark || !may(ctx, bookmark, 'view', services) || !may(ctx, bookmark, 'add', services) || !may(ctx, bookmark, 'delete', services)) return null;
  const query = new URLSearchParams({ user_id: String(user.id), object_type: entry.definition.contentType, object_id: id, brief: '1', limit: '1' });
  const result = await callView(ctx, api.get(bookmark)!.list, { query });
  if (!result.ok) return null;
  const found = (result.body.results as { id: number }[])[0];
  return { id: found ? found.id : null };
}

/** POST `/<id>/bookmark/`: adds the user's bookmark of the object, or removes it when there is one; back to the object's page. */
export async function toggleBookmark(ctx: Context, services: Services, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews, id: string): Promise<void> {
  await readForm(ctx, session);
  const bookmark = byContentType.get(BOOKMARK_TYPE);
  const mark = await bookmarkOf(ctx, services, api, entry, id);
  if (!bookmark || !mark) return forbidden(ctx, page);
  if (!(await fetchObject(ctx, api, entry, id))) return notFound(ctx, page);
  const result = mark.id === null
    ? await callView(ctx, api.get(bookmark)!.create, { body: { object_type: entry.definition.contentType, object_id: Number(id) } })
    : await callView(ctx, api.get(bookmark)!.remove, { params: { id: String(mark.id) } });
  if (!result.ok) page.messages.push({ text: errorText(result.error), kind: 'danger' });
  ctx.status = 303;
  ctx.redirect(`${listUrl(entry)}${id}/`);
}

export async function addJournalEntry(ctx: Context, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews, id: string): Promise<void> {
  const journalEntry = byContentType.get(JOURNAL_TYPE);
  const form = await readForm(ctx, session);
  if (!journalEntry) return notFound(ctx, page);
  const body = { assigned_object_type: entry.definition.contentType, assigned_object_id: Number(id), kind: form.get('kind') || 'info', comments: form.get('comments') ?? '' };
  const result = await callView(ctx, api.get(journalEntry)!.create, { body });
  if (!result.ok) page.messages.push({ text: errorText(result.error), kind: 'danger' });
  ctx.status = 303;
  ctx.redirect(`${listUrl(entry)}${id}/journal/`);
}

/** Brief objects of every model a form's relations point to (the first CHOICE_LIMIT; the search box finds others). */
export async function relationChoices(ctx: Context, api: ApiViews, entry: ModelEntry, creating: boolean, initial?: URLSearchParams): Promise<Map<string, { id: unknown; display?: unknown }[]>> {
  const relations = formFields(entry, creating).filter((f) => f.type === 'fk' || f.type === 'm2m');
  const targets = new Set(relations.map((f) => f.to!));
  if (entry.definition.tags && byContentType.get('extras.tag')) targets.add(byContentType.get('extras.tag')!.definition.name);
  const out = new Map<string, { id: unknown; display?: unknown }[]>();
  for (const target of targets) {
    const other = modelList.find((m) => m.definition.name === target);
    if (!other) continue;
    const result = await callView(ctx, api.get(other)!.list, { query: new URLSearchParams({ brief: '1', limit: String(CHOICE_LIMIT) }) });
    const listed: { id: unknown; display?: unknown }[] = result.ok ? result.body.results : [];
    // Objects the page's query names (?device=3) are choices even beyond the first CHOICE_LIMIT.
    const wanted = relations.filter((f) => f.to === target).flatMap((f) => initial?.getAll(f.name) ?? []).filter((v) => /^\d+$/.test(v) && !listed.some((o) => String(o.id) === v));
    if (wanted.length) {
      const more = await callView(ctx, api.get(other)!.list, { query: new URLSearchParams([...wanted.map((v) => ['id', v]), ['brief', '1']]) });
      if (more.ok) listed.unshift(...more.body.results);
    }
    out.set(target, listed);
  }
  return out;
}

/**
 * The object as its page and edit form show it: the web interface reads the default version's
 * forms, and a generic relation that version does not show (NetBox 4's scope of a prefix or a
 * wireless LAN under 3.7) is read from the newest version that does, so that the page shows it, the
 * form too, and saving keeps it.
 */
async function fullObject(ctx: Context, api: ApiViews, entry: ModelEntry, id: string): Promise<Record<string, any> | null> {
  const object = await fetchObject(ctx, api, entry, id);
  const missing = formFields(entry, false).filter((f) => f.type === 'generic_fk' && object && !(`${f.name}_type` in object));
  if (!object || !missing.length) return object;
  const origin = `${ctx.protocol}://${ctx.host}`;
  // newest first; the default version was read above
  for (const v of [...apiVersions.versions].reverse().filter((v) => v.version !== apiVersions.default)) {
    const other = await callView(ctx, api.get(entry)!.retrieve, { params: { id }, path: `${listUrl(entry)}${id}/`, version: { ...v, prefix: '', base: origin, origin } });
    if (!other.ok) continue;
    for (const f of missing) {
      const key = typeKeyIn(f, v.version);
      if (key in other.body && !(`${f.name}_type` in object)) {
        object[`${f.name}_type`] = other.body[key];
        object[`${f.name}_id`] = other.body[`${f.name}_id`];
        object[f.name] = other.body[f.name];
      }
    }
    if (missing.every((f) => `${f.name}_type` in object)) break;
  }
  return object;
}

/** GET shows the form; POST saves through the API (create, or a partial update) and shows its errors. */
export async function editPage(ctx: Context, services: Services, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews, id: string | null): Promise<void> {
  const creating = id === null;
  const action: 'add' | 'change' = creating ? 'add' : 'change';
  if (entry.definition.readOnly || !may(ctx, entry, action, services)) return forbidden(ctx, page);
  const object = creating ? null : await fullObject(ctx, api, entry, id);
  if (!creating && !object) return notFound(ctx, page);
  const customFields = entry.definition.customFields ? await customFieldsFor(services.db, entry) : [];
  let errors: Record<string, string[]> = {};
  const initial = creating && ctx.method === 'GET' ? ctx.URL.searchParams : undefined;
  const back = returnUrl(ctx.method === 'POST' ? new URLSearchParams() : ctx.URL.searchParams, '');
  let posted: URLSearchParams | null = null;
  let nonField: string[] = [];
  let returnTo = back;
  if (ctx.method === 'POST') {
    posted = await readForm(ctx, session);
    returnTo = returnUrl(posted, '');
    const converted = formBody(entry, posted, creating, customFields);
    // Range patterns (Gi1/0/[1-48]) on an add form: one object per name, created together.
    const expanded = creating ? expandBodies(converted.body, entry.definition.ui?.patterns ?? []) : { bodies: [converted.body], errors: {} };
    errors = { ...converted.errors, ...expanded.errors };
    if (!Object.keys(errors).length) {
      const v = api.get(entry)!;
      const many = expanded.bodies.length > 1;
      const result = creating
        ? await callView(ctx, v.create, { body: many ? expanded.bodies : converted.body })
        : await callView(ctx, (c) => v.update(c, true), { params: { id }, body: converted.body });
      if (result.ok) {
        ctx.status = 303;
        ctx.redirect(returnTo || (many ? `${listUrl(entry)}?${(result.body as { id: number }[]).map((r) => `id=${r.id}`).join('&')}` : `${listUrl(entry)}${result.body.id}/`));
        return;
      }
      let body = result.error as Record<string, unknown>;
      if (many && Array.isArray(body)) {
        const at = (body as object[]).findIndex((e) => Object.keys(e).length);
        body = Object.fromEntries(Object.entries(body[at] ?? {}).map(([k, m]) => [k, ([] as unknown[]).concat(m).map((x) => `${expanded.bodies[at]?.name ?? ''}: ${x}`)]));
      }
      errors = (typeof body === 'object' && !Array.isArray(body) ? body : { non_field_errors: [errorText(body)] }) as Record<string, string[]>;
      nonField = [errors.non_field_errors, errors.detail, errors.__all__].flat().filter((x): x is string => typeof x === 'string');
      const known = new Set([...formFields(entry, creating).flatMap((f) => [f.name, `${f.name}_type`, `${f.name}_id`, ...(f.type === 'generic_fk' ? [typeKeyIn(f, apiVersions.default)] : [])]), 'tags', 'custom_fields']);
      for (const [k, v] of Object.entries(errors)) if (!known.has(k) && !['non_field_errors', 'detail', '__all__'].includes(k)) nonField.push(`${k}: ${([] as unknown[]).concat(v).join(' ')}`);
    }
  }
  const choices = await relationChoices(ctx, api, entry, creating, initial);
  const inputs = buildInputs(entry, creating, { object, posted, initial, errors, choicesOf: (m) => choices.get(m) ?? [], customFields });
  const patterns = new Set(creating ? entry.definition.ui?.patterns ?? [] : []);
  for (const input of inputs) {
    if (!patterns.has(input.name)) continue;
    const example = PATTERN_EXAMPLES[entry.definition.fields[input.name]?.type ?? ''] ?? PATTERN_EXAMPLES.name;
    input.help = `${input.help ? `${input.help} ` : ''}A range pattern creates many: ${example}.`;
  }
  const heading = creating ? `Add ${label(entry).toLowerCase()}` : `Edit ${object!.display ?? id}`;
  const view = {
    heading,
    nonField,
    inputs,
    // an image field's file input needs a multipart form
    multipart: inputs.some((i) => i.file),
    action: creating ? `${listUrl(entry)}add/` : `${listUrl(entry)}${id}/edit/`,
    cancelUrl: returnTo || (creating ? listUrl(entry) : `${listUrl(entry)}${id}/`),
    returnUrl: returnTo,
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  sendPage(ctx, { ...page, title: heading }, 'edit', view, ctx.method === 'POST' ? 400 : 200);
}

/** GET asks; POST deletes through the API, or shows why it may not (the 409 text naming the dependents). */
export async function deletePage(ctx: Context, services: Services, page: Page, session: Session | null, entry: ModelEntry, api: ApiViews, id: string): Promise<void> {
  if (entry.definition.readOnly || !may(ctx, entry, 'delete', services)) return forbidden(ctx, page);
  const object = await fetchObject(ctx, api, entry, id);
  if (!object) return notFound(ctx, page);
  let blocked = '';
  if (ctx.method === 'POST') {
    await readForm(ctx, session);
    const result = await callView(ctx, api.get(entry)!.remove, { params: { id } });
    if (result.ok) {
      ctx.status = 303;
      ctx.redirect(listUrl(entry));
      return;
    }
    blocked = errorText(result.error);
  }
  const view = {
    heading: `Delete ${object.display}`,
    question: `Are you sure you want to delete ${label(entry).toLowerCase()} ${object.display}?`,
    blocked,
    action: `${listUrl(entry)}${id}/delete/`,
    cancelUrl: `${listUrl(entry)}${id}/`,
    button: 'Delete',
    hidden: [],
    csrf: page.csrf,
    csrfField: page.csrfField,
  };
  sendPage(ctx, { ...page, title: view.heading }, 'confirm', view, blocked ? 409 : 200);
}

export function notFound(ctx: Context, page: Page): void {
  sendPage(ctx, { ...page, title: 'Not found' }, 'message', { heading: 'Not found', text: 'There is no such page or object, or you may not see it.' }, 404);
}

export function forbidden(ctx: Context, page: Page): void {
  sendPage(ctx, { ...page, title: 'Forbidden' }, 'message', { heading: 'Forbidden', text: 'You do not have permission to do this.' }, 403);
}
