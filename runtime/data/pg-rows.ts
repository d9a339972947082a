/**
 * PostgreSQL rows as objects, built faster than node-pg builds them. node-pg's object mode copies an
 * empty template and then adds each column to the copy: for a page of 1,000 devices (41 columns) that
 * cost ~1.5 ms more than the array mode, and left objects that V8 keeps as dictionaries, slower to read
 * for the rest of the request. Here a bound read asks for arrays (`rowMode: 'array'`, the same type
 * parsers) and turns them into objects with a constructor compiled once per column list: an object
 * literal, so every row of a statement shares one hidden class. Same keys, same values, same order.
 * The read batch's multi-statement query (simpleQueryRows, below) uses the same constructors on
 * each row as it arrives.
 */

type Fields = readonly { name: string }[];
type Make = (values: unknown[]) => Record<string, any>;

/** Constructors by column list (bounded: a full map starts again). */
const makers = new Map<string, Make>();
const MOST_MAKERS = 2000;

function makerOf(fields: Fields): Make {
  const names = fields.map((f) => f.name);
  const key = names.join('\u0000');
  let make = makers.get(key);
  if (make) return make;
  // Duplicate names (a join's `select *`) keep the last column's value, as node-pg's object mode
  // does. `__proto__` in a literal would set the prototype, not a column: such rows go key by key.
  make = names.includes('__proto__')
    ? (values) => Object.fromEntries(names.map((name, i) => [name, values[i]]))
    : new Function('v', `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as Make;
  if (makers.size >= MOST_MAKERS) makers.clear();
  makers.set(key, make);
  return make;
}

interface ArrayResult { rows: unknown[][]; fields: Fields }

/** A statement's array-mode rows as objects (in place: `result.rows` is replaced). */
export function objectRows(result: ArrayResult): Record<string, any>[] {
  const rows = result.rows;
  if (!rows.length) return rows as unknown as Record<string, any>[];
  const make = makerOf(result.fields);
  const out = new Array<Record<string, any>>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = make(rows[i]);
  (result as unknown as { rows: Record<string, any>[] }).rows = out;
  return out;
}

/** The same for what node-pg answers a query: one result, or one per statement of a multi-statement query. */
export function withObjectRows<T>(answer: T): T {
  for (const result of (Array.isArray(answer) ? answer : [answer]) as ArrayResult[]) if (result && Array.isArray(result.rows)) objectRows(result);
  return answer;
}

/** A node-pg query config that asks for array rows (to be passed through withObjectRows). */
export function asArrays<T extends object>(config: T): T & { rowMode: 'array' } {
  return { ...config, rowMode: 'array' };
}

interface FieldDescription { name: string; dataTypeID: number }
type Parser = (text: string) => unknown;
/** What a node-pg client answers for a column type: the parser it would use for it. */
export interface TypeParsers { getTypeParser(oid: number, format: 'text'): Parser }

/** A statement's columns: each one's parser, and the row constructor. */
interface Shape { parsers: Parser[]; make: Make }
/** Shapes by column names and types (bounded like the constructors). */
const shapes = new Map<string, Shape>();

function shapeOf(fields: readonly FieldDescription[], types: TypeParsers): Shape {
  let key = '';
  for (const f of fields) key += `${f.name}\u0000${f.dataTypeID}\u0000`;
  let shape = shapes.get(key);
  if (!shape) {
    shape = { parsers: fields.map((f) => types.getTypeParser(f.dataTypeID, 'text')), make: makerOf(fields) };
    if (shapes.size >= MOST_MAKERS) shapes.clear();
    shapes.set(key, shape);
  }
  return shape;
}

/**
 * A multi-statement simple query (the read batch's) as node-pg runs a custom query (its "submittable"
 * interface, as pg-cursor uses): each statement's rows straight to objects, one list per statement.
 * node-pg's own query builds, per statement, a result whose column setup copies a dictionary of every
 * column (8% of a device detail's CPU on PostgreSQL), then arrays that pg-rows turned into objects: a
 * detail's batch cost the client 0.26-0.31 ms of CPU that way and 0.11 ms this way.
 * The protocol is node-pg's: a row parser that throws fails the query at ReadyForQuery (the rest of
 * the answer is still read), an ErrorResponse fails it at once, a lost connection fails it.
 */
class SimpleQueryRows {
  callback: ((error: Error | null, results?: Record<string, any>[][]) => void) | null = null;
  private readonly results: Record<string, any>[][] = [];
  private rows: Record<string, any>[] | null = null;
  private shape: Shape | null = null;
  private failure: Error | null = null;
  private settled = false;

  constructor(private readonly text: string, private readonly types: TypeParsers) {}

  submit(connection: { query(text: string): void }): null {
    connection.query(this.text);
    return null;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    this.shape = shapeOf(message.fields, this.types);
    this.rows = [];
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.failure) return;
    try {
      const { parsers, make } = this.shape!;
      const raw = message.fields;
      const values = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) values[i] = raw[i] === null ? null : parsers[i](raw[i]!);
      this.rows!.push(make(values));
    } catch (error) {
      this.failure = error as Error;
    }
  }

  handleCommandComplete(): void {
    this.results.push(this.rows ?? []);
    this.rows = null;
  }

  handleEmptyQuery(): void {}

  handleError(error: Error): void {
    this.finish(error);
  }

  handleReadyForQuery(): void {
    this.finish(this.failure, this.results);
  }

  private finish(error: Error | null, results?: Record<string, any>[][]): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error, results);
  }
}

/** Runs a multi-statement simple query on a node-pg client: each statement's rows, as objects. */
export function simpleQueryRows(client: TypeParsers & { query(query: SimpleQueryRows): unknown }, text: string): Promise<Record<string, any>[][]> {
  return new Promise((resolve, reject) => {
    const query = new SimpleQueryRows(text, client);
    query.callback = (error, results) => (error ? reject(error) : resolve(results!));
    client.query(query);
  });
}
