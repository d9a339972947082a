/** Config and export templates: the template code from a data file (synced-data.ts). */
import { syncedData } from './synced-data.js';

export const syncedTemplate = syncedData('template_code', (text) => text);
