// A real PostgreSQL server per test file (tools/test-servers), and pools on it as separate
// processes would open them: each pool is its own set of connections.
import { type RunningServer, startPostgres } from "@paysys/test-servers";
import pg from "pg";

export interface TestDatabase {
  server: RunningServer;
  /** A new pool on the server (another process's view of the same database). */
  pool(config?: pg.PoolConfig): pg.Pool;
  close(): Promise<void>;
}

export async function startDatabase(): Promise<TestDatabase> {
  const server = await startPostgres();
  const pools: pg.Pool[] = [];
  return {
    server,
    pool(config = {}) {
      const pool = new pg.Pool({ connectionString: server.url, max: 20, ...config });
      // pool.end() answers before its connections have closed, so the server stopped just after
      // may still tell one "terminating connection" (seen on CI's loaded machine). That arrives as
      // an `error` event on the pool, which, unheard, ends the test's process. The store listens on
      // the pools it is given; a test's own queries use pools it is not given.
      pool.on("error", () => {});
      pools.push(pool);
      return pool;
    },
    async close() {
      await Promise.all(pools.map((p) => p.end().catch(() => {})));
      await server.stop();
    },
  };
}
