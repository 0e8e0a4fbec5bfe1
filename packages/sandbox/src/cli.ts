#!/usr/bin/env node
// `pnpm sandbox`: starts the sandbox and prints where each interface listens.
import { defaultPortalUser } from "./portal.js";
import { startSandbox } from "./server.js";

const port = Number(process.env.PORT ?? process.argv[2] ?? 4010);
const sandbox = await startSandbox({ port });
console.log(`paysys sandbox on ${sandbox.url}
  portal v2 and v1   ${sandbox.portalUrl}   (user ${defaultPortalUser.lgn} / ${defaultPortalUser.psw})
  captcha text       GET  ${sandbox.url}/__sandbox/portal/captcha?session=<captchaSession>
  expire tokens      POST ${sandbox.url}/__sandbox/portal/expire-tokens
  counters           GET  ${sandbox.url}/__sandbox/portal/stats
Ctrl+C stops it.`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => sandbox.close().then(() => process.exit(0)));
