/**
 * NetBox's reference material (`shared/reference/`: the Ansible collection, pynetbox 7.8, the demo
 * databases): NETBOX_REFERENCE, else `../shared/reference` beside the clone, else its place on the
 * machines CI runs on, for a clone elsewhere. Tests that need it fail without it; they never skip.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The reference folder that holds `entry`, or undefined. */
export function referencePath(entry: string): string | undefined {
  const roots = [process.env.NETBOX_REFERENCE, join(ROOT, '..', 'shared', 'reference'), '/work/shared/reference'];
  return roots.filter((p): p is string => !!p).map((p) => join(p, entry)).find((p) => existsSync(p));
}
