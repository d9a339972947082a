/**
 * The composition root's wiring, imported by every entry point (server, worker, CLI): the schema's
 * hooks are registered with the registry, and the webhook queue subscribes to committed changes.
 * Lower layers never import what sits above them; this is where the layers meet.
 */
import { registerHooks } from './data/registry.js';
import { hooks } from './hooks/index.js';
import './webhooks/queue.js';

registerHooks(hooks);
