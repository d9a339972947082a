/** What a request carries through the API's middleware (`ctx.state`), and the services the app is built with. */
import type { RequestState } from '../auth/request-state.js';

export type { Services } from '../core/services.js';

/** What a keyed write must remember (State.idempotency). */
export interface Keyed { userId: number; key: string; fingerprint: string }

export interface State extends RequestState {
  /** a write sent with an Idempotency-Key: its answer is stored in its transaction (idempotency.ts) */
  idempotency?: Keyed;
}
