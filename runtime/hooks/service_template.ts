/** Service templates share the port rules and the port filter of services (see service.ts). */
export { serviceTemplate } from './service.js';
