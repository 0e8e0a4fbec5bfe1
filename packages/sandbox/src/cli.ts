#!/usr/bin/env node
// `paysys-sandbox` (in this repository `pnpm sandbox` or `npm run sandbox`): starts the sandbox and
// prints where each interface listens. Exit codes: 0 stopped by a signal, 1 could not start, 2 bad arguments.
import { parseArgs } from "node:util";
import { startSandbox } from "./server.js";

const usage = `usage: paysys-sandbox [--port <n>] [--host <address>] [--latency <ms>]

Starts a local server that plays the payment system's interfaces, for tests and demos.

  --port <n>        port to listen on (default 4010, or $PORT; 0 picks a free one)
  --host <address>  address to listen on (default 127.0.0.1; the sandbox is meant for loopback)
  --latency <ms>    every request waits this long before it is handled, as across a network (default 0)
  -h, --help        this text

Ctrl+C stops it.`;

let values: { port?: string; host?: string; latency?: string; help?: boolean };
let positionals: string[];
try {
  ({ values, positionals } = parseArgs({
    options: { port: { type: "string" }, host: { type: "string" }, latency: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  }));
} catch (e) {
  console.error(`paysys-sandbox: ${(e as Error).message}\n\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
// A bare number is accepted too, as in `paysys-sandbox 4010`.
const portText = values.port ?? positionals[0] ?? process.env.PORT ?? "4010";
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`paysys-sandbox: --port must be a whole number from 0 to 65535, got ${JSON.stringify(portText)}\n\n${usage}`);
  process.exit(2);
}

const latencyMs = Number(values.latency ?? "0");
if (!Number.isFinite(latencyMs) || latencyMs < 0) {
  console.error(`paysys-sandbox: --latency must be a number of milliseconds, 0 or more, got ${JSON.stringify(values.latency)}\n\n${usage}`);
  process.exit(2);
}

try {
  const sandbox = await startSandbox({ port, host: values.host, latencyMs });
  const lines = [...sandbox.modules.values()].flatMap((m) => m.describe?.(sandbox.url) ?? []);
  console.log(`paysys sandbox on ${sandbox.url}\n${lines.map((l) => `  ${l}`).join("\n")}\nCtrl+C stops it.`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => sandbox.close().then(() => process.exit(0)));
} catch (e) {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === "EADDRINUSE"
      ? `port ${port} is in use (another sandbox?); choose another with --port, or --port 0 for any free one`
      : code === "EACCES"
        ? `no permission to listen on port ${port}; choose one above 1023`
        : (e as Error).message;
  console.error(`paysys-sandbox: could not start: ${why}`);
  process.exit(1);
}
