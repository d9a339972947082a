/**
 * front ports: a front port maps to a position its rear port has (see ports.ts).
 */
import { frontPortRules } from './ports.js';

export const frontPort = frontPortRules('RearPort');
