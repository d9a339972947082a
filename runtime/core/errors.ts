/**
 * The error catalogue. Every failure a client can cause is an ApiError with NetBox's body shape;
 * anything else is a 500 whose details stay in the log.
 */

export type ErrorBody = Record<string, unknown> | unknown[];

export class ApiError extends Error {
  constructor(public readonly status: number, public readonly body: ErrorBody) {
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
  protectedDelete: (dependents: string[], total: number) =>
    new ApiError(409, { detail: `Unable to delete object. ${total} dependent objects were found: ${dependents.join(', ')}${total > dependents.length ? ', …' : ''}` }),
};

/**
 * A constraint the database enforced after validation passed (two requests racing for the same
 * unique name, or for an object another request just deleted): a 4xx, not a 500.
 */
export function fromDatabaseError(error: unknown): ApiError | null {
  const e = error as { code?: string; message?: string };
  const code = e?.code ?? '';
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ApiError(400, { non_field_errors: ['An object with these unique values already exists.'] });
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ApiError(409, { detail: 'The request conflicts with related objects that were changed at the same time; try again.' });
  }
  return null;
}

/** Collects the errors of one object while it is validated. */
export class ErrorCollector {
  readonly errors: FieldErrors = {};
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}
