// Every package README's opening example runs (tools/readme-examples.mjs copied it here;
// `tsc` type-checks the same files in this package's typecheck).
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type RunningServer, startPostgres, startRedis } from "@paysys/test-servers";
import { afterAll, describe, expect, it } from "vitest";

const dir = fileURLToPath(new URL("../readme-examples", import.meta.url));

/** The servers the store examples connect to (REDIS_URL, DATABASE_URL), each started when its example runs. */
let redis: RunningServer | undefined;
let postgres: RunningServer | undefined;
afterAll(() => Promise.all([redis?.stop(), postgres?.stop()]));

describe("README examples", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
  it("exist for every published package", () =>
    expect(files.sort()).toEqual(["cashout.ts", "core.ts", "ecommerce.ts", "fiscal.ts", "portal.ts", "sandbox.ts", "store-postgres.ts", "store-redis.ts"]));
  for (const file of files) {
    it(`${file} runs`, { timeout: 60_000 }, async () => {
      if (file === "store-redis.ts") redis ??= await startRedis();
      if (file === "store-postgres.ts") postgres ??= await startPostgres();
      const env = { ...process.env, ...(redis ? { REDIS_URL: redis.url } : {}), ...(postgres ? { DATABASE_URL: postgres.url } : {}) };
      const output = execFileSync(process.execPath, ["--import", "tsx", `${dir}/${file}`], { encoding: "utf8", timeout: 30_000, env });
      expect(output.trim().length).toBeGreaterThan(0);
      if (file === "core.ts") expect(output).toMatch(/^10050 1999 100.50$/m);
      if (file === "portal.ts") expect(output).toMatch(/^dealer01: 1240 payments in May$/m);
      if (file === "sandbox.ts") expect(output).toMatch(/^200 [0-9A-F]{5}$/m);
      if (file === "cashout.ts") expect(output).toMatch(/^3 requests stored, 1 authorization$/m);
      if (file === "ecommerce.ts") expect(output).toMatch(/^order-1001: 1500.00 KZT, status 1; callbacks 1, 3$/m);
      if (file === "store-redis.ts" || file === "store-postgres.ts") expect(output).toMatch(/^receipt \d+: applied in the journal$/m);
      if (file === "fiscal.ts") expect(output).toMatch(/^receipt \d+; Z: 1 sale\(s\), 1250.5 KZT, cash 625.25 KZT$/m);
    });
  }
});
