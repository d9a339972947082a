/**
 * rear ports: a rear port keeps the positions its front ports use (see ports.ts).
 */
import { rearPortRules } from './ports.js';

export const rearPort = rearPortRules('FrontPort');
