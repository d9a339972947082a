/**
 * Content types: readable by every authenticated user, without an object permission (as NetBox).
 * The rows themselves are kept by runtime/content-types.ts; the model is read-only.
 */
import type { ModelHooks } from '../data/registry.js';

export const contentType: ModelHooks = {
  selfService: true,
};
