// migrate(): the tables made once, whoever runs it and however often; table names of your own.
import { ConfigurationError, StoreUnavailableError } from "@paysys/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrate, PostgresStore, shippedMigrations } from "../src/index.js";
import { startDatabase, type TestDatabase } from "./database.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await startDatabase();
});
afterAll(() => db.close());

const tablesIn = async (schema: string) =>
  (await db.pool().query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema])).rows.map(
    (r) => r.table_name,
  );

describe("migrate", () => {
  it("applies every shipped migration once, in order; running it again applies nothing", async () => {
    const versions = shippedMigrations().map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    const pool = db.pool();
    expect(await migrate(pool, { tables: { prefix: "once_" } })).toEqual(versions);
    expect(await migrate(pool, { tables: { prefix: "once_" } })).toEqual([]);
    const recorded = await pool.query("SELECT version, name FROM public.once_migrations ORDER BY version");
    expect(recorded.rows).toEqual(shippedMigrations().map(({ version, name }) => ({ version, name })));
  });

  // A database made by the previous release, with a delivery claimed then (no token): migrate adds
  // only what is new, the old claim is kept until it runs out, and no release under a token frees it.
  it("upgrades tables made by an earlier release: only the newer migrations run, and claims made before keep to their time", async () => {
    const options = { tables: { prefix: "up_" } };
    const [first, ...later] = shippedMigrations(options);
    const pool = db.pool();
    await pool.query("CREATE TABLE public.up_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    await pool.query(first!.sql);
    await pool.query("INSERT INTO public.up_migrations (version, name) VALUES ($1, $2)", [first!.version, first!.name]);
    await pool.query("INSERT INTO public.up_callbacks (key, claimed_until) VALUES ('old-claim', now() + interval '1 hour')");
    expect(await migrate(pool, options)).toEqual(later.map((m) => m.version));
    const store = new PostgresStore(pool, options);
    await store.release("old-claim", "any-delivery");
    expect(await store.claim("old-claim", 1_000, "new-delivery")).toBe("processing");
  });

  it("run at once from two pools (two processes starting), each migration is applied exactly once", async () => {
    const options = { tables: { prefix: "race_" } };
    const results = await Promise.all([migrate(db.pool(), options), migrate(db.pool(), options), migrate(db.pool(), options)]);
    expect(results.flat().sort()).toEqual(shippedMigrations().map((m) => m.version));
    expect(await tablesIn("public")).toEqual(expect.arrayContaining(["race_callbacks", "race_journal", "race_leases", "race_migrations", "race_orders", "race_values"]));
  });

  it("custom names and a schema of their own: the store works on them, apart from the default tables", async () => {
    const options = { schema: "till", tables: { prefix: "t_", names: { journal: "till_journal" } } };
    await migrate(db.pool(), options);
    expect(await tablesIn("till")).toEqual(["t_callbacks", "t_leases", "t_migrations", "t_orders", "t_values", "till_journal"]);
    const store = new PostgresStore(db.pool(), options);
    const now = Date.now();
    await store.beginIntent({ key: "k/1", operation: "op", hash: "h", holder: { id: "a" }, startedAt: now, sendBy: now + 1000, state: "pending" });
    await store.set("link", "uid-1");
    expect((await store.pendingIntents("k/")).map((e) => e.key)).toEqual(["k/1"]);
    expect((await db.pool().query("SELECT key FROM till.till_journal")).rows).toEqual([{ key: "k/1" }]);
    expect(await store.get("link")).toBe("uid-1");
  });

  it("a store over tables never migrated says so (StoreUnavailableError: run migrate)", async () => {
    const store = new PostgresStore(db.pool(), { tables: { prefix: "missing_" } });
    const error = await store.get("k").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/could not read a value .*run migrate\(pool\) first/);
  });

  it("a table name that is not a plain identifier is refused before anything reaches the database", async () => {
    expect(() => new PostgresStore(db.pool(), { tables: { names: { journal: 'j"; DROP TABLE x; --' } } })).toThrow(ConfigurationError);
    expect(() => new PostgresStore(db.pool(), { schema: "Public" })).toThrow(ConfigurationError);
    expect(() => new PostgresStore(db.pool(), { tables: { names: { journal: "paysys_leases" } } })).toThrow(/two tables share a name/);
    await expect(migrate(db.pool(), { tables: { prefix: "bad-" } })).rejects.toThrow(ConfigurationError);
  });
});

describe("names PostgreSQL cannot take unquoted, and a new schema made by two table sets at once", () => {
  it("every reserved word of the running server (pg_get_keywords R and T) is refused as a schema or a table name, before any SQL", async () => {
    const words = (await db.pool().query<{ word: string }>("SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T') ORDER BY word")).rows.map((r) => r.word);
    expect(words.length).toBeGreaterThan(70);
    const accepted = words.filter((word) => {
      try {
        new PostgresStore(db.pool(), { schema: word });
        return true;
      } catch (e) {
        return !(e instanceof ConfigurationError && /reserved word/.test((e as Error).message));
      }
    });
    expect(accepted).toEqual([]);
    expect(() => new PostgresStore(db.pool(), { tables: { names: { orders: "order" } } })).toThrow(/the orders table's name "order" is a reserved word/);
    // An unreserved key word is a name like any other: the store works on it.
    await migrate(db.pool(), { schema: "value", tables: { prefix: "kw_" } });
    const store = new PostgresStore(db.pool(), { schema: "value", tables: { prefix: "kw_" } });
    await store.set("k", "v");
    expect(await store.get("k")).toBe("v");
  });

  it("two table sets migrated at once into one schema that does not exist yet: both made, neither refused", async () => {
    const schema = `fresh_${Date.now().toString(36)}`;
    const results = await Promise.allSettled([migrate(db.pool(), { schema, tables: { prefix: "a_" } }), migrate(db.pool(), { schema, tables: { prefix: "b_" } })]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    expect((await tablesIn(schema)).length).toBe(12);
  });
});

describe("two copies of the package on one pool", () => {
  // Its ES module and CommonJS builds in one process, or two versions: each prepares its statements
  // on the same connections, and numbered in each copy their names met, with other texts.
  it("each works on its own tables over one connection, neither refused for the other's statement names", async () => {
    const pool = db.pool({ max: 1 });
    await migrate(pool, { tables: { prefix: "copy_a_" } });
    await migrate(pool, { tables: { prefix: "copy_b_" } });
    vi.resetModules();
    const other = (await import("../src/index.js")) as typeof import("../src/index.js");
    expect(other.PostgresStore).not.toBe(PostgresStore);
    const a = new PostgresStore(pool, { tables: { prefix: "copy_a_" } });
    const b = new other.PostgresStore(pool, { tables: { prefix: "copy_b_" } });
    await a.set("k", "from a");
    await b.set("k", "from b");
    expect([await a.get("k"), await b.get("k")]).toEqual(["from a", "from b"]);
  });
});
