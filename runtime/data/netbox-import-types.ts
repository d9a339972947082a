/**
 * What the parts of the NetBox import (netbox-import.ts) share: a source row, a line of the summary,
 * and the refusal that is not a failure of the data (an occupied target).
 */

/** A row as read from the NetBox database, by column. */
export type Src = Record<string, any>;

export interface ModelSummary { model: string; read: number; imported: number; skipped: number; reason: string }

export class ImportRefused extends Error {}
