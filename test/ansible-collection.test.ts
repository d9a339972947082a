/**
 * The NetBox Ansible collection's own integration suite for NetBox 3.7 (netbox.netbox 3.20.0, targets
 * `regression-v3.7` and `v3.7`), run unmodified against a fresh NetLedger in its default API version
 * (`/api/`, NetBox 3.7). How a suite runs and what each test checks: test/ansible-suite.ts.
 */
import { ansibleSuite } from './ansible-suite.js';

// @test-timeout 2400

ansibleSuite({
  release: 'v3.20.0',
  target: 'v3.7',
  base: '',
  inventory: false,
  minimumTasks: 800,
  knownFailures: {},
});
