/** The types of compiled representations: a form, what a field function reads besides the row, and the function itself. */
import type { ModelEntry } from '../core/types.js';
import type { Row } from './registry.js';

export type Mode = 'full' | 'brief' | 'nested';

/** What a field function reads besides the row: the page's loaded relations and extras. */
export interface RenderState {
  /** the model whose rows are the response's top-level objects */
  readonly entry: ModelEntry;
  /** where the answer's API URLs start: scheme, host and the version prefix it was asked under */
  readonly baseUrl: string;
  /** where the web interface's URLs start (display_url): scheme and host */
  readonly origin: string;
  row(model: string, id: unknown): Row | undefined;
  /** the nested form of another object (or the fields of `form`, a computed reverse_one's list) */
  nested(model: string, id: unknown, form?: string[]): Record<string, unknown> | null;
  display(entry: ModelEntry, row: Row): string;
  /** a computed value with its references to other objects replaced by their nested forms */
  materialise(value: unknown): unknown;
  /** the ids of an object's tags, in tag order */
  tags(id: number): number[];
  m2m(field: string, id: number): number[];
  extra(field: string, id: number): unknown;
  customFields(entry: ModelEntry, raw: unknown): Record<string, unknown>;
  revealed(id: number, field: string): unknown;
}

export type Put = (out: Record<string, unknown>, row: Row, state: RenderState) => void;
