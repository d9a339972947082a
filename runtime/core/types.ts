/**
 * The resolved form of a model, as the generator emits it into generated/ and the runtime reads it.
 * Everything the runtime does for a model is driven by these tables; nothing in runtime/ names a model.
 */

export type FieldType =
  | 'string' | 'text' | 'slug' | 'color' | 'mac'
  | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'json'
  | 'choice' | 'fk' | 'm2m' | 'generic_fk'
  | 'ip_prefix' | 'ip_address'
  | 'password' | 'token_key'
  /** an uploaded image: its file kept in core_stored_file, its name in the column, read as the URL it is served at */
  | 'image'
  | 'alias' | 'computed';

export type OnDelete = 'cascade' | 'set_null' | 'protect' | 'keep';

export interface FieldDefinition {
  name: string;
  type: FieldType;
  label: string;
  helpText?: string;
  /** a computed field the web form still offers, as this kind of input (an image attachment's image) */
  formInput?: 'image';
  required: boolean;
  nullable: boolean;
  default?: unknown;
  readOnly: boolean;
  writeOnly: boolean;
  unique: boolean;
  uniqueCi: boolean;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
  maxDigits?: number;
  decimalPlaces?: number;
  pattern?: string;
  /** choice: the choice set's name */
  choices?: string;
  /** choice: the empty string is accepted and rendered as null */
  blank?: boolean;
  /** choice: read as the bare value in every form */
  plain?: boolean;
  /** fk, m2m: target model */
  to?: string;
  onDelete?: OnDelete;
  /** generic_fk: what deleting the target does when the delete comes through the version of the key or a later one */
  onDeleteSince?: Record<string, OnDelete>;
  /** generic_fk: content type → model */
  types?: Record<string, string>;
  /** fk: relations the target must share with this object (a front port's rear port: device) */
  same?: string[];
  /** generic_fk: the API name of the content-type half (`<name>_type` unless the schema says otherwise) */
  typeKey?: string;
  /** generic_fk: the API name of the content-type half from the version of each key on (4.x's object_type) */
  typeKeySince?: Record<string, string>;
  /** generic_fk: the API name of the related object (the field's name unless the schema says otherwise) */
  nestedKey?: string;
  /** generic_fk: keys added to the nested target (of the types in `on`) in this model's own forms, computed by a hook per row */
  extra?: Record<string, { hook: string; on: string[]; type: string }>;
  /** alias: mirrored field */
  of?: string;
  /** computed: 'display', 'tree_depth', 'hook:<name>', 'coalesce:<fk>,<fk>', 'any:<field>,<field>' (true when one is set), 'reverse:<Model>.<field>' (a list), 'reverse_one:<Model>.<field>' (the first) or 'value' */
  source?: string;
  value?: unknown;
  /** computed reverse: only rows with these column values; the fields shown (default the nested form) */
  where?: Record<string, unknown>;
  form?: string[];
  /** integer: kept equal to the sum of `value` over the rows of `model` whose `field` points here, while any exist */
  sumOf?: { model: string; field: string; value: string };
  /** string: ordered naturally (dc2 before dc10) through a hidden sort column, columns[1] */
  natural?: boolean;
  /** an example value (OpenAPI document, conformance tests) */
  example?: unknown;
  /** false: no automatic filter */
  filter?: boolean;
  /** SQL column(s) this field is stored in; empty for alias, computed and m2m */
  columns: string[];
  /** m2m: join table with columns from_id, to_id */
  through?: string;
  /** API versions: shown and accepted from this version on / gone from this version on */
  since?: string;
  until?: string;
  /** generic_fk: the first API version in which it may point at a type, for types not in every version (NetBox 4's contacts of a service) */
  typesSince?: Record<string, string>;
  /** API versions: read-only from this version on (a write of it there is ignored, as NetBox ignores a read-only field) */
  readOnlySince?: string;
  /** API versions: a named conversion (runtime/core/conversions.ts) from the version of the key on, up to the next key (null: none) */
  convert?: Record<string, string | null>;
  /** API versions: the default on create through the version of the key and later ones */
  defaultSince?: Record<string, unknown>;
  /** json: a change-log snapshot of the object this generic relation names, shown in the version's field names */
  snapshotOf?: string;
}

export interface CountDefinition {
  name: string;
  /** counted model and its fk (or generic fk) pointing here */
  model: string;
  field: string;
  /** cumulative over a tree: objects attached to descendants count too */
  cumulative: boolean;
  /** the column of this model's table that stores it, kept by triggers (runtime/data/counter-columns.ts); cumulative counts have none and are counted */
  column?: string;
  /** the API versions that show it (schema/versions.yaml): from `since` on, before `until` */
  since?: string;
  until?: string;
}

export type LookupFamily = 'string' | 'number' | 'exact' | 'boolean';

/** One step of a relation path: the fk, m2m (or generic fk of one content type) followed from the previous model. */
export interface PathStep {
  field: string;
  model: string;
  contentType?: string;
}

export type FilterDefinition = (
  /** compares a column of the model itself */
  /** `conversion`: the version's named conversion of the field (runtime/core/versions.ts filteringIn), whose bounds the values become */
  /** `present`: a boolean filter on whether the field is set (an image field's has_<name>) */
  | { kind: 'field'; field: string; family: LookupFamily; lookup?: string; conversion?: string; present?: boolean }
  /** follows relations, then compares `by` on the last model; tree targets include descendants */
  | { kind: 'path'; path: PathStep[]; by: string; family: LookupFamily; tree: boolean; boolean?: boolean }
  /**
   * objects that rows of another model point at through `field` (an fk, a generic fk or an m2m),
   * matched by `by` on those rows, or through `path` from them (tree targets including descendants);
   * `then`: further fks from the model `field` points at, the last one pointing here (a provider's
   * circuits' terminations: CircuitTermination.circuit, then Circuit.provider)
   */
  | { kind: 'reverse'; model: string; field: string; then?: PathStep[]; by?: string; boolean?: boolean; path?: PathStep[]; tree?: boolean; family?: LookupFamily }
  | { kind: 'ip'; field: string; op: 'exact' | 'within' | 'within_include' | 'contains' | 'parent' | 'mask_length' | 'family' }
  | { kind: 'tag'; by: 'slug' | 'id' }
  /** objects the change log shows a request (a UUID) created, updated, or either */
  | { kind: 'request'; actions: ('create' | 'update')[] }
  | { kind: 'q' }
  /** a function of one of the model's hooks; `family`: the lookups it takes (`n` negates it, others reach the function) */
  | { kind: 'method'; method: string; family?: LookupFamily }
  /** sent by a known client, ignored by NetBox: accepted and ignored, even with strict filters */
  | { kind: 'ignored'; reason: string }
) & {
  /** API versions: the filter exists from this version on / is gone from this version on (a field's filters follow the field) */
  since?: string;
  until?: string;
};

/** A model that can terminate a cable (`cabling:` in its YAML); the path tracer reads only this. */
export interface CablingDefinition {
  role: 'endpoint' | 'pass_through';
  /** content types a cable may join this model to */
  peers: string[];
  /** the relation naming the object a termination belongs to (device, circuit, power panel) */
  parent?: string;
  /** objects whose `field` holds one of `values` cannot take a cable (resolved from choice groups) */
  notCabled?: { field: string; values: string[] };
  through?: {
    kind: 'to_position' | 'from_positions' | 'sibling';
    to?: string; position?: string; positions?: string;
    group?: string; side?: string; terminus?: string[];
  };
  /** endpoint: the relation to another endpoint through which a trace goes on (an interface's bridge) */
  continueVia?: string;
}

export interface ModelDefinition {
  name: string;
  app: string;
  endpoint: string;
  table: string;
  contentType: string;
  verboseName: string;
  source: string;
  tree: boolean;
  tags: boolean;
  customFields: boolean;
  timestamps: boolean;
  /** only GET, HEAD and OPTIONS */
  readOnly: boolean;
  /** the table is created by a runtime migration (runtime/data/migrations/), not the generated ones */
  systemTable?: boolean;
  /** writes are recorded in the change log and may trigger webhooks */
  changelog: boolean;
  /** the fk recorded as the change log's related object (an interface's device) */
  changelogRelated?: string;
  /** the web interface: the list page's columns (else a default from brief, choices and relations) */
  ui?: {
    columns?: string[];
    /** tabs of the object's page, each a table of another model's rows filtered by paths into this object */
    /** (`view`: runtime/ui/tab-views/<name>.ts, what the table adds to the rows: free space, a hierarchy) */
    tabs: { path: string; model: string; filter: Record<string, string>; label?: string; add?: string; addLabel?: string; view?: string }[];
    /** fields whose add-form value may be a range pattern */
    patterns: string[];
    /** extra panels of the object's page (runtime/ui/panels/<name>.ts) */
    panels: string[];
    /** columns the list page adds after the model's own (runtime/ui/column-views/<name>.ts) */
    columnViews: string[];
    /** a page of the model's connected rows beside their paths' far ends (/<app>/<path>/) */
    connections?: { path: string; label: string; farParent: string; farPort: string };
  };
  lookup: string;
  display: string[];
  ordering: string[];
  brief: string[];
  search: string[];
  /** q also matches objects that rows of another model point at (through `field`) when one of `fields` of those rows matches */
  searchRelated?: { model: string; field: string; fields: string[] }[];
  hooks: string[];
  uniqueTogether: string[][];
  /** fields of uniqueTogether groups whose null counts as a value (top-level rows are unique among themselves) */
  uniqueNullsMatch: string[];
  /** the fields the Clone button carries to the add form */
  clone?: string[];
  /** string fields of uniqueTogether groups whose blank value exempts the row, like a null */
  uniqueBlankExempt?: string[];
  /** a component template: the component model its rows become */
  templateFor?: string;
  /** creating an object instantiates the templates of its type (`from`), names' placeholders filled from paths */
  templates?: { from: string; names: Record<string, string>; skipUnless?: string; adoptIf?: string };
  fields: Record<string, FieldDefinition>;
  counts: Record<string, CountDefinition>;
  cabling?: CablingDefinition;
}

/** The forms of the default API version, and those of each version. */
export interface SerializerDefinition extends VersionForms {
  model: string;
  /** the forms of each API version (schema/versions.yaml), keyed by version: what a request of that version is shown */
  versions: Record<string, VersionForms>;
}

/** One API version's forms of a model: field lists, and the fields shown through a named conversion. */
export interface VersionForms {
  /** field names of the full representation, in order */
  full: string[];
  /** field names of the brief representation (?brief=1) */
  brief: string[];
  /** brief fields shown when the object is nested in another one (brief minus counts) */
  nested: string[];
  /** field → conversion name (runtime/core/conversions.ts) */
  convert: Record<string, string>;
  /** the display templates, where the version shows objects otherwise than the model's `display` (`display_since:`) */
  display?: string[];
}

/** An API version the service answers in (schema/versions.yaml). */
/** A row as the database driver returns it. */
export type Row = Record<string, any>;

export interface ApiVersion {
  version: string;
  /** the NetBox release it answers as (/api/status/) */
  netbox: string;
  /** the OpenAPI document of this version, a file of generated/ */
  document: string;
  /** lists also take `start=<id>`, cursor pagination (NetBox 4.6) */
  cursorPagination?: boolean;
  /** lists and objects take `fields=` and `omit=`, dynamic field selection (NetBox 4.0) */
  fieldSelection?: boolean;
  /** one object's answers carry a weak ETag and writes honour If-Match (NetBox 4.6) */
  etags?: boolean;
  /** write bodies take `add_tags` and `remove_tags` (NetBox 4.6) */
  partialTags?: boolean;
}

/** A menu of the web interface (schema/menu.yaml): groups of links, each shown to those who may view its model. */
export interface NavigationMenu {
  label: string;
  groups: {
    label: string;
    /** a model's list, or a page of its own (`url`, `label`) shown with that model's view permission */
    items: { model: string; label?: string; url?: string }[];
  }[];
}

/** The version one request is answered in (http/versions.ts works it out). */
export interface RequestVersion extends ApiVersion {
  /** the path prefix the request came under (`/v4.6`, or '' for /api/) */
  prefix: string;
  /** scheme, host and prefix: where every API URL of the answer starts */
  base: string;
  /** scheme and host: where web interface URLs start */
  origin: string;
}

export interface ApiVersions {
  /** what /api/ serves unless API_VERSION says otherwise */
  default: string;
  versions: ApiVersion[];
}

export type FilterSet = Record<string, FilterDefinition>;

export interface RouteDefinition {
  model: string;
  list: string;
  detail: string;
  /** the API versions that serve these routes */
  versions: string[];
  /** versions that serve the model at another path (`moved:`), each with that path */
  byVersion?: Record<string, { list: string; detail: string }>;
  /** the same list and detail under the app where NetBox 3.6 had the model (`legacy_app:`) */
  legacy?: { list: string; detail: string };
  /** extra detail routes served by the model's hooks, e.g. available-ips */
  extra: {
    path: string;
    methods: string[];
    hook: string;
    /** a route of the app (/api/<app>/<name>/), not of an object */
    app?: boolean;
    permission?: 'view' | 'add' | 'change' | 'delete';
    /** the field the route serves (an image field's file) */
    field?: string;
    /** per method, what it answers (for the OpenAPI document) */
    returns?: Record<string, { status?: number; model?: string; many?: boolean; schema?: Record<string, unknown> }>;
  }[];
}

export interface ChoiceSet {
  name: string;
  integer: boolean;
  choices: { value: string | number; label: string; group?: string }[];
}

export interface ModelEntry {
  definition: ModelDefinition;
  serializer: SerializerDefinition;
  filters: FilterSet;
  routes: RouteDefinition;
}
