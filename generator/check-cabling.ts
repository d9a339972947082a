/** The `cabling:` block of a model: its peers and the fields its cable paths follow. */
import type { ModelFile } from '../generated/schema-format.js';
import { type LoadedModel } from './schema-index.js';

/** `cabling:`: peers are cabled models that name this one back; the fields it names exist. */
export function checkCabling(spec: ModelFile, file: string, byName: Map<string, LoadedModel>, contentTypes: Map<string, string>, problems: string[]): void {
  const c = spec.cabling!;
  const at = `${file}: cabling`;
  const own = spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`;
  for (const peer of c.peers) {
    const other = byName.get(contentTypes.get(peer) ?? '')?.spec;
    if (!other) problems.push(`${at}.peers: '${peer}' is not the content type of a model`);
    else if (!other.cabling) problems.push(`${at}.peers: ${other.model} declares no cabling`);
    else if (!other.cabling.peers.includes(own)) problems.push(`${at}.peers: ${other.model} does not name ${own} among its peers`);
  }
  const relation = (name: string | undefined, key: string) => {
    if (name !== undefined && spec.fields[name]?.type !== 'fk') problems.push(`${at}.${key}: '${name}' is not a relation of ${spec.model}`);
  };
  const field = (name: string | undefined, key: string) => {
    if (name !== undefined && !spec.fields[name]) problems.push(`${at}.${key}: '${name}' is not a field of ${spec.model}`);
  };
  relation(c.parent, 'parent');
  relation(c.continue_via, 'continue_via');
  field(c.not_cabled?.field, 'not_cabled.field');
  const t = c.through;
  if (t && c.role !== 'pass_through') problems.push(`${at}.through: only a pass_through has one`);
  if (!t && c.role === 'pass_through') problems.push(`${at}: a pass_through needs 'through'`);
  if (t?.kind === 'to_position') {
    relation(t.to, 'through.to');
    field(t.position, 'through.position');
    if (!t.to || !t.position) problems.push(`${at}.through: to_position needs 'to' and 'position'`);
  }
  if (t?.kind === 'from_positions') {
    field(t.positions, 'through.positions');
    if (!t.positions) problems.push(`${at}.through: from_positions needs 'positions'`);
  }
  if (t?.kind === 'sibling') {
    relation(t.group, 'through.group');
    field(t.side, 'through.side');
    for (const name of t.terminus ?? []) relation(name, 'through.terminus');
    if (!t.group || !t.side) problems.push(`${at}.through: sibling needs 'group' and 'side'`);
  }
}
