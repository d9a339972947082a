/** A prefix's utilization (child prefixes of a container, else its IP addresses and ranges), as a bar per row of the list. */
import { prefixUtilization as figures } from '../../hooks/prefix_utilization.js';
import { utilizationColumn } from './utilization.js';

export const prefixUtilization = utilizationColumn(figures);
