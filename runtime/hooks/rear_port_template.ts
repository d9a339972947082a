/**
 * rear port templates: a rear port keeps the positions its front ports use (see ports.ts).
 */
import { rearPortRules } from './ports.js';

export const rearPortTemplate = rearPortRules('FrontPortTemplate');
