/** FHRP groups: shown as "[name ]<protocol>: <group id>", with the protocol's label. */
import { choiceSet, type ModelHooks, type Row } from '../data/registry.js';

function display(row: Row): string {
  const label = choiceSet('fhrp-group-protocol').choices.find((c) => c.value === row.protocol)?.label ?? row.protocol;
  return `${row.name ? `${row.name} ` : ''}${label}: ${row.group_id}`;
}

export const fhrpGroup: ModelHooks = { display };
