// What the store's tests share: a real redis-server of their own (tools/test-servers) and connected
// node-redis clients on it, each closed after the file's tests.
import { startRedis } from "@paysys/test-servers";
import { createClient, type RedisClientType } from "redis";

export async function redisForTests() {
  const server = await startRedis();
  const clients: RedisClientType[] = [];
  return {
    server,
    /** A connected client (another connection: another process's view), retrying fast so a resumed server is found again soon. */
    async client(url = server.url, options: Parameters<typeof createClient>[0] = {}): Promise<RedisClientType> {
      const client = createClient({ url, socket: { reconnectStrategy: () => 50, connectTimeout: 1000 }, ...options }) as RedisClientType;
      client.on("error", () => {}); // a halted server is expected here; the store reports it
      clients.push(client);
      await client.connect();
      return client;
    },
    async close() {
      for (const c of clients) if (c.isOpen) c.destroy();
      await server.stop();
    },
  };
}

let made = 0;
/** A key prefix no other test (or earlier run on the same server) uses. */
export const uniquePrefix = (what: string) => `${what}-${made++}-${Math.random().toString(36).slice(2, 8)}:`;
