/**
 * The NetBox Ansible collection (netbox.netbox 3.20.0, NetBox 3.7's, from the reference material)
 * against data imported from NetBox (test/import-netbox-demo.test.ts): a playbook that updates an
 * imported device found by its name (netbox_device), takes the next free address of an imported
 * prefix (netbox_ip_address, state new) and looks the device up (the nb_lookup plugin). It answers
 * each task's result, as Ansible's json callback reports it; the caller checks them through the API.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referencePath } from './reference.js';
import { runProcess } from './run-cli.js';

export interface ImportedAnsible {
  device: { changed: boolean; device: { id: number; serial: string; description: string } };
  address: { changed: boolean; ip_address: { id: number; address: string } };
  found: { key: string; value: { id: number } }[];
}

/** Runs the playbook with `url` and `token` on the device named `device` and the prefix `prefix`. */
export async function runImportedPlaybook(url: string, token: string, device: string, prefix: string): Promise<ImportedAnsible> {
  const collection = referencePath('ansible_modules/v3.20.0');
  const pynetbox = referencePath('pynetbox-7.8.0');
  if (!collection || !pynetbox) throw new Error('the collection netbox.netbox 3.20.0 and pynetbox 7.8 are reference material (NETBOX_REFERENCE names their folder)');
  const work = mkdtempSync(join(tmpdir(), 'netledger-imported-ansible-'));
  try {
    mkdirSync(join(work, 'collections', 'ansible_collections', 'netbox'), { recursive: true });
    symlinkSync(collection, join(work, 'collections', 'ansible_collections', 'netbox', 'netbox'));
    const access = `netbox_url: "{{ url }}"\n        netbox_token: "{{ token }}"`;
    writeFileSync(join(work, 'play.yml'), `
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    url: ${JSON.stringify(url)}
    token: ${JSON.stringify(token)}
  tasks:
    - name: device
      netbox.netbox.netbox_device:
        ${access}
        data:
          name: ${JSON.stringify(device)}
          serial: ANSIBLE-0001
          description: changed by Ansible
        state: present
    - name: address
      netbox.netbox.netbox_ip_address:
        ${access}
        data:
          prefix: ${JSON.stringify(prefix)}
          description: from Ansible
        state: new
    - name: found
      ansible.builtin.set_fact:
        found: "{{ query('netbox.netbox.nb_lookup', 'devices', api_endpoint=url, token=token, api_filter='name=${device}') }}"
`);
    writeFileSync(join(work, 'ansible.cfg'), '# empty: only the environment configures Ansible\n');
    const python = process.env.NETLEDGER_PYTHON ?? '/usr/bin/python3';
    const run = await runProcess('ansible-playbook', ['-i', 'localhost,', join(work, 'play.yml')], {
      ...process.env, HOME: work, PYTHONPATH: pynetbox, ANSIBLE_CONFIG: join(work, 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH: join(work, 'collections'),
      ANSIBLE_LOCAL_TEMP: join(work, 'ansible-local'), ANSIBLE_REMOTE_TEMP: join(work, 'ansible-remote'), ANSIBLE_STDOUT_CALLBACK: 'json',
      ANSIBLE_PYTHON_INTERPRETER: python, ANSIBLE_LOCALHOST_WARNING: 'False', ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False', ANSIBLE_DEPRECATION_WARNINGS: 'False', ANSIBLE_NOCOLOR: '1',
    }, 600_000);
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    const results = new Map<string, any>(report.plays[0].tasks.map((t: any) => [t.task.name, t.hosts.localhost]));
    for (const [name, result] of results) if (result.failed) throw new Error(`ansible task ${name} failed: ${result.msg ?? JSON.stringify(result).slice(0, 500)}`);
    if (run.code !== 0) throw new Error(`ansible-playbook exit ${run.code}: ${run.stderr.slice(-1000)}`);
    return { device: results.get('device'), address: results.get('address'), found: results.get('found').ansible_facts.found };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
