/**
 * The NetBox Ansible collection's own integration suites for NetBox 4.x (netbox.netbox 3.22.0, targets
 * `inventory-v4.3`, `regression-v4.3` and `v4.3`), run unmodified against a fresh NetLedger's NetBox 4.6
 * API: the collection's URL is the service's `/v4.6` base. How a suite runs and what each test checks:
 * test/ansible-suite.ts.
 */
import { ansibleSuite, type KnownFailures } from './ansible-suite.js';

// @test-timeout 3000

const VERSION_IN_MESSAGE = "the assert expects the module's message to name NetBox 4.3; the module names the server's version, 4.6 (NetBox 4.6 fails it the same way)";
const IS_STAFF = 'the task sets is_staff, which NetBox 4.5 removed (NetBox 4.6 has no such field either)';
const TOKEN_KEY = "the task gives a new token its key; NetBox 4.5's v2 tokens (4.6's default) generate theirs (NetBox ignores the key sent, NetLedger refuses it: test/tokens-v2.test.ts)";
const CONSTRAINTS = "NetLedger refuses a permission constraint naming a field its object type lacks (name on vpn.tunneltermination), where NetBox stores it unchecked: a deliberate check (test/auth-scenarios.test.ts)";

const MAC_READ_ONLY = "the task writes a VM interface's mac_address and expects it back; NetBox 4.2 made it read-only (the primary MAC address object's value), so NetBox 4.6 ignores the write, as NetLedger's 4.6 API does";

/** Tasks that fail against NetLedger's 4.6 API, by task file and task name, with the reason. */
const KNOWN_FAILURES: KnownFailures = {
  netbox_contact: {
    '7 - ASSERT': VERSION_IN_MESSAGE,
  },
  netbox_permission: {
    'PERMISSION 3: Update': CONSTRAINTS,
    'PERMISSION 3: ASSERT - Update': CONSTRAINTS,
  },
  netbox_user: {
    'USER 3: Update': IS_STAFF,
    'USER 3: ASSERT - Update': IS_STAFF,
  },
  netbox_token: {
    'TOKEN 1: Necessary info creation': TOKEN_KEY,
    'TOKEN 1: ASSERT - Necessary info creation': TOKEN_KEY,
    'TOKEN 2: Create duplicate': TOKEN_KEY,
    'TOKEN 2: ASSERT - Create duplicate': TOKEN_KEY,
    'TOKEN 3: Update': TOKEN_KEY,
    'TOKEN 3: ASSERT - Update': TOKEN_KEY,
    'TOKEN 4: ASSERT - Delete': TOKEN_KEY,
  },
  netbox_vm_interface: {
    'NETBOX_VM_INTERFACE 4: ASSERT - Updated': MAC_READ_ONLY,
    'NETBOX_VM_INTERFACE 5: ASSERT - Updated': MAC_READ_ONLY,
  },
};

const INTERFACES_42 = "the expected files show NetBox 4.1's interfaces; NetBox 4.2 gave them mac_addresses and primary_mac_address, which 4.6 (and NetLedger) show";
const SERVICES = "netbox-deploy.py creates its services with NetBox 4.2's device and virtual_machine, which NetBox 4.3 replaced by the generic parent: NetBox 4.6 refuses them, as NetLedger's 4.6 API does, so no service exists (the expected files show NetBox 4.1's services)";

const NEWER_FIELDS = "the expected files show NetBox 4.1's objects; NetBox 4.2 gave interfaces a vlan_translation_policy and NetBox 4.5 most objects an owner, which 4.6 (and NetLedger's 4.6 API) show, null when unset";

const CLUSTER_SITE = "the expected files show NetBox 4.1's clusters, with a site: netbox-deploy.py gives Test Cluster a site, which NetBox 4.2 replaced by the scope and ignores (as NetLedger's 4.6 API does), so the cluster's virtual machines have no site";

/** Inventory cases that fail as a whole, with the reason. */
const KNOWN_INVENTORY_FAILURES: Record<string, string> = {
  // query_filters site=test-site: the virtual machines of Test Cluster are not listed
  'test-inventory-jinja2-filter': CLUSTER_SITE,
};

/** Differences between nb_inventory's output and the expected files that any case may show, with the reason. */
const KNOWN_INVENTORY_DIFFERENCES = [
  { match: /\.interfaces\[\d+\]\.(mac_addresses|primary_mac_address): unexpected /, reason: INTERFACES_42 },
  { match: /\.(owner|vlan_translation_policy): unexpected null$/, reason: NEWER_FIELDS },
  { match: /\.services: missing item /, reason: SERVICES },
  { match: /^root\.service_\w+: missing /, reason: SERVICES },
  { match: /^root\.all\.children: missing item "service_\w+"$/, reason: SERVICES },
  { match: /^root\._meta\.hostvars\.test10[0-3]-vm\.(site|sites): missing /, reason: CLUSTER_SITE },
  { match: /^root\._meta\.hostvars\.test10[0-3]-vm\.regions: missing item "(test|parent)-region"$/, reason: CLUSTER_SITE },
  { match: /^root\.(sites?_)?test_site\.hosts: missing \(expected \["test100-vm","test101-vm","test102-vm","test103-vm"\]\)$/, reason: CLUSTER_SITE },
];

ansibleSuite({
  release: 'v3.22.0',
  target: 'v4.3',
  base: '/v4.6',
  inventory: true,
  minimumTasks: 800,
  knownFailures: KNOWN_FAILURES,
  knownInventoryFailures: KNOWN_INVENTORY_FAILURES,
  knownInventoryDifferences: KNOWN_INVENTORY_DIFFERENCES,
});
