/** The tab views a model's `ui.tabs.<tab>.view` may name, by name (runtime/ui/tabs.ts applies them). */
import type { TabView } from '../tab-view.js';
import { childPrefixes } from './child_prefixes.js';
import { prefixIps } from './prefix_ips.js';
import { freeVids } from './free_vids.js';
import { aggregatePrefixes } from './aggregate_prefixes.js';

export const tabViews: Record<string, TabView> = { child_prefixes: childPrefixes, prefix_ips: prefixIps, free_vids: freeVids, aggregate_prefixes: aggregatePrefixes };
