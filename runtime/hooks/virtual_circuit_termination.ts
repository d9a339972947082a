/**
 * Virtual circuit terminations (NetBox 4.2): only a virtual interface (virtual, LAG, bridge) can end
 * a virtual circuit.
 */
import { model, type ModelHooks } from '../data/registry.js';
import { cabled } from './cabled.js';

/** interface types that are not physical: what a virtual circuit may end on */
const VIRTUAL_TYPES = new Set(['virtual', 'lag', 'bridge']);

export const virtualCircuitTermination: ModelHooks = {
  async prepare(item, { db }) {
    if (item.values.interface_id == null) return;
    const iface = await db(model('Interface').definition.table).where('id', item.values.interface_id).first('type');
    if (iface && !VIRTUAL_TYPES.has(iface.type)) item.errors.add('interface', 'Virtual circuits may be terminated only to virtual interfaces.');
  },
  // NetBox serves …/paths/ here as on a front port: the stored paths whose nodes include the object
  actions: { paths: cabled.actions!.paths },
};
