/**
 * Hooks by the name the schema gives them (`hooks: [name]` in a model's YAML). Each file holds the
 * real exceptions of one model; the generic runtime does everything else.
 */
import type { ModelHooks } from '../registry.js';
import { device } from './device.js';
import { interfaceHooks } from './interface.js';
import { ipAddress } from './ip_address.js';
import { prefix } from './prefix.js';
import { tag } from './tag.js';
import { token } from './token.js';
import { user } from './user.js';
import { vlanGroup } from './vlan_group.js';

export const hooks: Record<string, ModelHooks> = {
  device,
  interface: interfaceHooks,
  ip_address: ipAddress,
  prefix,
  tag,
  token,
  user,
  vlan_group: vlanGroup,
};
