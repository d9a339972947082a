/** Config contexts: `data` from a data file, read as JSON or YAML, which must give an object (synced-data.ts). */
import { parse as parseYaml } from 'yaml';
import { syncedData } from './synced-data.js';

export const syncedContext = syncedData('data', (text) => {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new Error(`it is not valid JSON or YAML (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('its data is not a JSON or YAML object.');
  return JSON.stringify(value);
});
