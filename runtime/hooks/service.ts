/**
 * Services and service templates: ports are whole numbers from 1 to 65535, and `?port=` finds the
 * ones listing a port. A service has exactly one parent: a device, a virtual machine or (4.x) an FHRP group.
 */
import { choiceSet, type ModelHooks, type Row, type WriteItem } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { isSet } from './merged.js';

function checkPorts(item: WriteItem): void {
  if (item.values.ports === undefined) return;
  const ports = JSON.parse(item.values.ports);
  if (!Array.isArray(ports) || !ports.length || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    item.errors.add('ports', 'Give a list of port numbers from 1 to 65535.');
  }
}

/** Ports are stored as compact JSON ([22,80]): a port is listed when it is a whole element of that text. */
const portFilter: NonNullable<ModelHooks['filters']>[string] = (qb, values) => {
  const ports = values.map((v) => {
    if (!/^\d+$/.test(v.trim())) throw errors.badFilter('port', 'Enter a whole number.');
    return Number(v);
  });
  qb.where((w) => {
    for (const p of ports) for (const pattern of [`[${p}]`, `[${p},%`, `%,${p},%`, `%,${p}]`]) w.orWhere('ports', 'like', pattern);
  });
};

/** Ports as NetBox lists them: runs of consecutive numbers collapsed (80-82, 443). */
function portList(ports: number[]): string {
  const runs: string[] = [];
  const sorted = [...ports].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return runs.join(', ');
}

/** "<name> (<protocol>/<ports>)", e.g. "web (TCP/80-82, 443)". */
function serviceDisplay(row: Row): string {
  const label = choiceSet('service-protocol').choices.find((c) => c.value === row.protocol)?.label ?? row.protocol;
  const ports = typeof row.ports === 'string' ? JSON.parse(row.ports) : row.ports;
  return `${row.name} (${label}/${Array.isArray(ports) ? portList(ports) : ''})`;
}

export const service: ModelHooks = {
  display: serviceDisplay,
  filters: { port: portFilter },
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    // the parent (4.x's parent_object; 3.7's device or virtual machine, hooks/cached_scope.ts): exactly one.
    // NetBox's clean() names no field (full_clean's __all__, which the REST API keeps)
    const both = isSet(v.device_id) && isSet(v.virtual_machine_id);
    if (both || !isSet(v.parent_object_type)) item.errors.add('__all__', 'A service must be assigned to either a device or a virtual machine.');
    checkPorts(item);
  },
};

export const serviceTemplate: ModelHooks = {
  filters: { port: portFilter },
  prepare: checkPorts,
};
