/**
 * Every name the generator derives from a model comes from here, so files, tables, identifiers and
 * URLs stay consistent between the generator, the runtime registry and the tests.
 */

/** `IPAddress` → `ipaddress` (NetBox's model_name, used in content types and default tables) */
export function modelKey(model: string): string {
  return model.toLowerCase();
}

export function defaultTable(app: string, model: string): string {
  return `${app}_${modelKey(model)}`;
}

export function defaultContentType(app: string, model: string): string {
  return `${app}.${modelKey(model)}`;
}

/** `IPAddress` → `ipAddress`, `VLANGroup` → `vlanGroup` */
export function camelName(model: string): string {
  const match = /^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/.exec(model);
  const head = match ? match[0] : '';
  return head.toLowerCase() + model.slice(head.length);
}

/** Folder of a model's generated files: `generated/<app>/<endpoint>/` */
export function modelFolder(app: string, endpoint: string): string {
  return `${app}/${endpoint}`;
}

export function listPath(app: string, endpoint: string): string {
  return `/api/${app}/${endpoint}/`;
}

export function detailPath(app: string, endpoint: string): string {
  return `/api/${app}/${endpoint}/:id/`;
}

/** `primary_ip4` → `Primary ip4`: NetBox's default label (capitalised verbose name) */
export function defaultLabel(field: string): string {
  const words = field.replace(/^_+/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function m2mTable(table: string, field: string): string {
  return `${table}_${field}`;
}
