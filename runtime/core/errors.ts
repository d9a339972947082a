/**
 * The error catalogue. Every failure a client can cause is an ApiError with NetBox's body shape;
 * anything else is a 500 whose details stay in the log.
 */

export type ErrorBody = Record<string, unknown> | unknown[];

export class ApiError extends Error {
  /** `headers`: sent with the answer (Retry-After of a 503). */
  constructor(public readonly status: number, public readonly body: ErrorBody, public readonly headers: Record<string, string> = {}) {
    super(typeof (body as { detail?: unknown }).detail === 'string' ? (body as { detail: string }).detail : JSON.stringify(body));
  }
}

/** Field errors of one object: `{field: [messages]}`; object-level problems under non_field_errors. */
export type FieldErrors = Record<string, string[]>;

export const errors = {
  notFound: () => new ApiError(404, { detail: 'Not found.' }),
  noCredentials: () => new ApiError(403, { detail: 'Authentication credentials were not provided.' }),
  forbidden: (detail = 'You do not have permission to perform this action.') => new ApiError(403, { detail }),
  methodNotAllowed: (method: string) => new ApiError(405, { detail: `Method "${method}" not allowed.` }),
  unsupportedMediaType: (type: string) => new ApiError(415, { detail: `Unsupported media type "${type}" in request.` }),
  badJson: (reason: string) => new ApiError(400, { detail: `JSON parse error - ${reason}` }),
  badRequest: (detail: string) => new ApiError(400, { detail }),
  /** one object's field errors, or an array aligned with a bulk request */
  validation: (body: ErrorBody) => new ApiError(400, body),
  /** filter values that cannot be parsed */
  badFilter: (param: string, message: string) => new ApiError(400, { [param]: [message] }),
  /** the database cannot be reached now (a failover, a restart): the client may simply try again */
  unavailable: () => new ApiError(503, { detail: 'The database is unavailable; try again shortly.' }, { 'Retry-After': '2' }),
  protectedDelete: (dependents: string[], total: number) =>
    new ApiError(409, { detail: `Unable to delete object. ${total} dependent objects were found: ${dependents.join(', ')}${total > dependents.length ? ', …' : ''}` }),
};

/** PostgreSQL data errors (SQLSTATE) a client's values can cause, and what they mean. */
const DATA_ERRORS: Record<string, string> = {
  '22001': 'a text is longer than its field allows',
  '22003': 'a number is out of range for its field',
  '22007': 'a date or time is malformed',
  '22008': 'a date or time is out of range',
  '22021': 'a text contains a character the database cannot store',
  '22P02': 'a value is not of its field\'s type',
  '22P05': 'a text contains a character the database cannot store',
  '54001': 'the request is too complex for one query',
};

/** Socket errors of a lost or refused database connection. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * PostgreSQL's answers when the server cannot serve this connection: class 08 (connection
 * exception), shutting down or starting up (57P01-57P03), too many connections (53300), and a
 * read-only transaction (25006: the server is a standby, e.g. a primary that was just demoted).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);
const LOST_MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|Connection ended unexpectedly|timeout exceeded when trying to connect|Timeout acquiring a connection/i;

/**
 * Did this fail because the database connection was lost, refused or never obtained (not because of
 * the statement)? Such a request is answered 503 with Retry-After; a transaction that failed so
 * before COMMIT was sent may run again (inTransaction).
 */
export function isConnectionLost(error: unknown): boolean {
  const e = error as { code?: unknown; name?: string; message?: string };
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
  return e.name === 'KnexTimeoutError' || LOST_MESSAGES.test(e.message ?? '');
}

/**
 * A constraint the database enforced after validation passed (two requests racing for the same
 * unique name, or for an object another request just deleted): a 4xx, not a 500.
 */
export function fromDatabaseError(error: unknown): ApiError | null {
  const e = error as { code?: string; message?: string };
  const code = e?.code ?? '';
  if (isConnectionLost(error)) return errors.unavailable();
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ApiError(400, { non_field_errors: ['An object with these unique values already exists.'] });
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ApiError(409, { detail: 'The request conflicts with related objects that were changed at the same time; try again.' });
  }
  // A value the database cannot hold or compare (PostgreSQL class 22, too complex a query): the
  // request's fault, so a 400 rather than a 500. Validation should have named the field; this is the
  // net under it (the message says what the database refused, never the SQL).
  const refused = DATA_ERRORS[code] ?? (/^SQLITE_(ERROR|TOOBIG|RANGE)$/.test(code) && /too large|too many|too big|out of range/i.test(e.message ?? '') ? 'the request is too large for one query' : undefined);
  if (refused) return new ApiError(400, { non_field_errors: [`A value in the request cannot be stored or compared: ${refused}.`] });
  return null;
}

/** Collects the errors of one object while it is validated. */
export class ErrorCollector {
  readonly errors: FieldErrors = {};
  /** `shownAs`: the name a field has in the request's API version, where it differs (content_types → object_types) */
  constructor(private readonly shownAs?: ReadonlyMap<string, string>) {}
  add(field: string, message: string): void {
    (this.errors[this.shownAs?.get(field) ?? field] ??= []).push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}
