import Libsql from "libsql";
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type ArgType,
  type ColumnType,
  type IsolationLevel,
  type MappedError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from "@prisma/driver-adapter-utils";

// Prisma's SQLite driver adapter over libsql's synchronous API (a SQLite build whose native part ships
// prebuilt in an npm package, so `npm ci` compiles nothing). One connection for the client's life, so
// its pragmas hold for every query, transactions included; prepared statements are kept by SQL text, since
// Prisma sends the same few statements over and over and preparing is most of a small query's cost.
// Values go in and out as @prisma/adapter-better-sqlite3 wrote them (ISO dates, integers as strings),
// so a database written by the old driver reads the same.

export type SqliteAdapterOptions = {
  /** `file:<path>` or a plain path; `:memory:` for a throwaway database. */
  url: string;
  /**
   * Set on every connection the adapter opens (a reconnect after `$disconnect` too). Default: a 5 s
   * `busy_timeout`, so a statement waits out another connection's write lock instead of failing.
   */
  pragmas?: Readonly<Record<string, string | number>>;
};

type Statement = ReturnType<Libsql.Database["prepare"]>;
/** A prepared statement with what does not change between its runs: its result columns (none for a writer). */
type Prepared = { statement: Statement; columns: { names: string[]; declared: (string | null)[] } | null };
type Lock = { release: () => void };

const STATEMENT_CACHE_SIZE = 256;
/** writeNow's statements (one per batch size of the repository that uses it). */
const DIRECT_STATEMENTS = 512;
const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\b/i;

/** SQLite's declared column types as Prisma writes them in migrations; others are inferred from values. */
const DECLARED: Readonly<Record<string, ColumnType>> = {
  TEXT: ColumnTypeEnum.Text,
  INTEGER: ColumnTypeEnum.Int32,
  INT: ColumnTypeEnum.Int32,
  BIGINT: ColumnTypeEnum.Int64,
  REAL: ColumnTypeEnum.Double,
  DOUBLE: ColumnTypeEnum.Double,
  FLOAT: ColumnTypeEnum.Float,
  DECIMAL: ColumnTypeEnum.Numeric,
  NUMERIC: ColumnTypeEnum.Double,
  BOOLEAN: ColumnTypeEnum.Boolean,
  DATETIME: ColumnTypeEnum.DateTime,
  TIMESTAMP: ColumnTypeEnum.DateTime,
  DATE: ColumnTypeEnum.Date,
  TIME: ColumnTypeEnum.Time,
  BLOB: ColumnTypeEnum.Bytes,
  JSONB: ColumnTypeEnum.Json,
};

function inferredType(value: unknown): ColumnType {
  if (typeof value === "string") return ColumnTypeEnum.Text;
  if (typeof value === "bigint") return ColumnTypeEnum.Int64;
  if (typeof value === "number") return ColumnTypeEnum.UnknownNumber;
  if (value instanceof Uint8Array) return ColumnTypeEnum.Bytes;
  return ColumnTypeEnum.Int32;
}

function columnTypes(declared: (string | null)[], rows: unknown[][]): ColumnType[] {
  return declared.map((type, column) => {
    const known = type ? DECLARED[type.toUpperCase()] : undefined;
    if (known !== undefined) return known;
    const sample = rows.find((row) => row[column] !== null)?.[column];
    return sample === undefined ? ColumnTypeEnum.Int32 : inferredType(sample);
  });
}

function valueOut(value: unknown, type: ColumnType): unknown {
  if (typeof value === "bigint") return type === ColumnTypeEnum.DateTime ? new Date(Number(value)).toISOString() : value.toString();
  if (typeof value === "number" && type === ColumnTypeEnum.DateTime) return new Date(value).toISOString();
  if (typeof value === "number" && (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64)) return Math.trunc(value);
  if (value instanceof Uint8Array) return Array.from(value);
  return value;
}

const isoDate = (date: Date) => date.toISOString().replace("Z", "+00:00");

function valueIn(value: unknown, type: ArgType | undefined): unknown {
  if (value === null || value === undefined) return null;
  const scalar = type?.scalarType;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return isoDate(value);
  if (typeof value === "string") {
    if (scalar === "int") return Number.parseInt(value, 10);
    if (scalar === "float" || scalar === "decimal") return Number.parseFloat(value);
    if (scalar === "bigint") return BigInt(value);
    if (scalar === "datetime") return isoDate(new Date(value));
    if (scalar === "bytes") return Buffer.from(value, "base64");
  }
  if (Array.isArray(value) && scalar === "bytes") return Buffer.from(value as number[]);
  return value;
}

type SqliteFailure = { code: string; rawCode?: number; message: string };
const isSqliteFailure = (error: unknown): error is SqliteFailure =>
  error instanceof Error && typeof (error as { code?: unknown }).code === "string";

/** The failures Prisma turns into its own errors (P2002 and the like); anything else is rethrown as it is. */
function mappedError(error: SqliteFailure): MappedError | null {
  const fields = () => {
    const list = error.message.split("constraint failed: ")[1];
    return list === undefined ? undefined : { fields: list.split(", ").map((field) => field.split(".").pop() ?? field) };
  };
  switch (error.code) {
    case "SQLITE_BUSY":
      return { kind: "SocketTimeout" };
    case "SQLITE_CONSTRAINT_UNIQUE":
    case "SQLITE_CONSTRAINT_PRIMARYKEY":
      return { kind: "UniqueConstraintViolation", constraint: fields() };
    case "SQLITE_CONSTRAINT_NOTNULL":
      return { kind: "NullConstraintViolation", constraint: fields() };
    case "SQLITE_CONSTRAINT_FOREIGNKEY":
    case "SQLITE_CONSTRAINT_TRIGGER":
      return { kind: "ForeignKeyConstraintViolation", constraint: { foreignKey: {} } };
  }
  const [, subject] = /^no such table: (.+)$/.exec(error.message) ?? [];
  if (subject) return { kind: "TableDoesNotExist", table: subject };
  const [, column] = /(?:^no such column: |has no column named )(.+)$/.exec(error.message) ?? [];
  if (column) return { kind: "ColumnNotFound", column };
  return null;
}

function rethrown(error: unknown): never {
  const mapped = isSqliteFailure(error) ? mappedError(error) : null;
  if (!mapped) throw error;
  throw new DriverAdapterError({ ...mapped, originalCode: (error as SqliteFailure).code, originalMessage: (error as Error).message });
}

class SqliteQueryable {
  readonly provider = "sqlite";
  readonly adapterName = "@berth/db-libsql";

  constructor(
    protected readonly db: Libsql.Database,
    private readonly statements: Map<string, Prepared>,
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    try {
      const { statement, columns } = this.prepared(query.sql);
      const args = query.args.map((arg, i) => valueIn(arg, query.argTypes[i]));
      if (!columns) {
        this.run(statement, query.sql, args);
        return Promise.resolve({ columnNames: [], columnTypes: [], rows: [] });
      }
      const rows = statement.all(args) as unknown[][];
      const types = columnTypes(columns.declared, rows);
      return Promise.resolve({
        columnNames: columns.names,
        columnTypes: types,
        rows: rows.map((row) => row.map((value, i) => valueOut(value, types[i] ?? ColumnTypeEnum.Int32))),
      });
    } catch (error) {
      return rethrown(error);
    }
  }

  executeRaw(query: SqlQuery): Promise<number> {
    try {
      const args = query.args.map((arg, i) => valueIn(arg, query.argTypes[i]));
      return Promise.resolve(this.run(this.prepared(query.sql).statement, query.sql, args));
    } catch (error) {
      return rethrown(error);
    }
  }

  private run(statement: Statement, sql: string, args: unknown[]): number {
    const { changes } = statement.run(args);
    // A schema change outdates what the statements kept here describe (their columns).
    if (SCHEMA_CHANGE.test(sql)) this.statements.clear();
    return changes;
  }

  /** A statement prepared once per SQL text; readers return rows as arrays with 64-bit integers intact. */
  private prepared(sql: string): Prepared {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const statement = this.db.prepare(sql);
    let columns: Prepared["columns"] = null;
    if (statement.reader) {
      statement.raw(true).safeIntegers(true);
      const described = statement.columns();
      columns = { names: described.map((c) => c.name), declared: described.map((c) => c.type) };
    }
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    const prepared = { statement, columns };
    this.statements.set(sql, prepared);
    return prepared;
  }
}

class SqliteTransaction extends SqliteQueryable implements Transaction {
  // Prisma sends COMMIT and ROLLBACK itself; commit() and rollback() only let the next transaction begin.
  readonly options = { usePhantomQuery: false };

  constructor(db: Libsql.Database, statements: Map<string, Prepared>, private readonly lock: Lock) {
    super(db, statements);
  }

  commit(): Promise<void> {
    this.lock.release();
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    this.lock.release();
    return Promise.resolve();
  }
}

class SqliteConnection extends SqliteQueryable implements SqlDriverAdapter {
  private readonly cache: Map<string, Prepared>;
  private readonly direct = new Map<string, Statement>();
  private queue: Promise<void> = Promise.resolve();

  constructor(db: Libsql.Database, cache: Map<string, Prepared>) {
    super(db, cache);
    this.cache = cache;
  }

  executeScript(script: string): Promise<void> {
    // A script may change the schema: statements prepared before it are dropped.
    this.cache.clear();
    this.direct.clear();
    try {
      this.db.exec(script);
      return Promise.resolve();
    } catch (error) {
      return rethrown(error);
    }
  }

  /** One transaction at a time on the one connection (SQLite has no nested BEGIN). */
  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") throw new DriverAdapterError({ kind: "InvalidIsolationLevel", level: isolationLevel });
    const previous = this.queue;
    let release = () => {};
    this.queue = new Promise((resolve) => (release = resolve));
    await previous;
    try {
      this.db.exec("BEGIN");
    } catch (error) {
      release();
      rethrown(error);
    }
    return new SqliteTransaction(this.db, this.cache, { release });
  }

  /**
   * A write with bound values straight to libsql, past Prisma's query compiler (about as much CPU as the statement
   * itself for a batch of small rows): dates and booleans are bound as Prisma's writes bind them (valueIn).
   */
  writeNow(sql: string, args: readonly unknown[]): number {
    try {
      // Kept apart from the client's statements: a batch's text differs by its row count, and would push them out.
      let statement = this.direct.get(sql);
      if (!statement) {
        if (this.direct.size >= DIRECT_STATEMENTS) this.direct.clear();
        statement = this.db.prepare(sql);
        this.direct.set(sql, statement);
      }
      return statement.run(args.map((arg) => valueIn(arg, undefined))).changes;
    } catch (error) {
      return rethrown(error);
    }
  }

  dispose(): Promise<void> {
    this.cache.clear();
    this.direct.clear();
    this.db.close();
    return Promise.resolve();
  }
}

const PRAGMA_VALUE = /^[A-Za-z0-9_]+$/;

function open(url: string, pragmas: Readonly<Record<string, string | number>>): SqliteConnection {
  const db = new Libsql(url.replace(/^file:/, ""));
  for (const [name, value] of Object.entries(pragmas)) {
    if (!PRAGMA_VALUE.test(name) || !PRAGMA_VALUE.test(String(value))) throw new Error(`SqliteAdapter: pragma ${name} = ${String(value)} is not a plain name and value`);
    db.exec(`PRAGMA ${name} = ${value}`);
  }
  return new SqliteConnection(db, new Map());
}

/** The factory Prisma takes as `adapter`, in the client (packages/db) and the CLI (prisma.config.ts). */
export class SqliteAdapter implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "sqlite";
  readonly adapterName = "@berth/db-libsql";

  /** The connection the client opened last (its one connection): `writeNow` runs on it, like the client's queries. */
  private connection: SqliteConnection | null = null;

  constructor(private readonly options: SqliteAdapterOptions) {}

  connect(): Promise<SqlDriverAdapter> {
    this.connection = open(this.options.url, this.options.pragmas ?? { busy_timeout: 5000 });
    return Promise.resolve(this.connection);
  }

  /** SqliteConnection.writeNow on the client's connection; throws before the client connected. */
  writeNow(sql: string, args: readonly unknown[]): number {
    if (!this.connection) throw new Error("SqliteAdapter: writeNow before the client connected");
    return this.connection.writeNow(sql, args);
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return Promise.resolve(open(":memory:", {}));
  }
}
