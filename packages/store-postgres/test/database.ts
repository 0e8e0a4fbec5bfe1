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
      pools.push(pool);
      return pool;
    },
    async close() {
      await Promise.all(pools.map((p) => p.end().catch(() => {})));
      await server.stop();
    },
  };
}
