/** An IP range's utilization (the IP addresses of its VRF inside it), as a bar per row of the list. */
import { rangesUtilization } from '../../hooks/prefix_utilization.js';
import { utilizationColumn } from './utilization.js';

export const rangeUtilization = utilizationColumn(rangesUtilization);
