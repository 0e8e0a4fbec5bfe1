// The store kinds a fleet runs on. Each kind starts what it needs in the test process (a folder;
// a database server), names the store in a JSON config every worker opens with
// `fixtures/fleet-store.mjs`, may take its server down and up again in the middle of a scenario (an
// outage), and cleans up. The scenarios in `fleet.test.ts` run once per kind listed in `kinds`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { migrate } from "@paysys/store-postgres";
import { type RunningServer, startPostgres, startRedis } from "@paysys/test-servers";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

/** What `fixtures/fleet-store.mjs` opens: `kind` picks the opener, the rest is the kind's own. */
export interface StoreConfig {
  kind: string;
  [setting: string]: unknown;
}

/** A kind's store, started for one run of the scenarios. */
export interface RunningStore {
  config: StoreConfig;
  /**
   * Stops the store's server and starts it again on the same port with the same data (an outage).
   * Absent for a kind with no server: the scenarios skip the outage for it, and nothing else.
   */
  outage?: { halt(): Promise<void>; resume(): Promise<void> };
  stop(): Promise<void>;
}

export interface StoreKind {
  name: string;
  start(): Promise<RunningStore>;
}

/**
 * `FileStore` from `@paysys/core/node`: processes on one machine sharing files under one lock.
 * There is no server to halt: its "outage" would be a lost disk, which is not what the
 * scenario's halt-and-resume means, so the kind has none.
 */
const file: StoreKind = {
  name: "file",
  async start() {
    const folder = mkdtempSync(join(tmpdir(), "paysys-fleet-"));
    return { config: { kind: "file", path: join(folder, "store.json") }, stop: async () => rmSync(folder, { recursive: true, force: true }) };
  },
};

/** A store over a real database server the test starts: its halt and resume are the outage. `prepare` readies it once, as a deployment does. */
const served = (name: string, start: () => Promise<RunningServer>, prepare?: (url: string) => Promise<void>): StoreKind => ({
  name,
  async start() {
    const server = await start();
    await prepare?.(server.url);
    return { config: { kind: name, url: server.url }, outage: server, stop: () => server.stop() };
  },
});

/** The tables, made before any worker starts (workers started during the outage then only wait for the database). */
async function migrated(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
}

export const kinds: StoreKind[] = [file, served("redis", startRedis), served("postgres", startPostgres, migrated)];

/** The kinds with a database server, each started for one test file: its store config by name, and one stop for all. */
export async function startServers(): Promise<{ config(name: "redis" | "postgres"): StoreConfig; stop(): Promise<void> }> {
  const running = new Map<string, RunningStore>();
  for (const kind of kinds) if (kind.name !== "file") running.set(kind.name, await kind.start());
  return {
    config: (name) => running.get(name)!.config,
    stop: async () => {
      for (const store of running.values()) await store.stop();
    },
  };
}

/** A sandbox and the kinds' database servers for one test file: started before its tests, stopped after them. */
export function useSandboxAndServers(): { readonly sb: Sandbox; readonly servers: Awaited<ReturnType<typeof startServers>> } {
  const running: { sb?: Sandbox; servers?: Awaited<ReturnType<typeof startServers>> } = {};
  beforeAll(async () => {
    running.sb = await startSandbox();
    running.servers = await startServers();
  }, 120_000);
  afterAll(async () => {
    await running.sb?.close();
    await running.servers?.stop();
  });
  return {
    get sb() {
      return running.sb!;
    },
    get servers() {
      return running.servers!;
    },
  };
}
