/**
 * front port templates: a front port maps to a position its rear port has (see ports.ts).
 */
import { frontPortRules } from './ports.js';

export const frontPortTemplate = frontPortRules('RearPortTemplate');
