/** An aggregate's utilization (the prefixes of every VRF inside it), as a bar per row of the list. */
import { aggregatesUtilization } from '../../hooks/prefix_utilization.js';
import { utilizationColumn } from './utilization.js';

export const aggregateUtilization = utilizationColumn(aggregatesUtilization);
