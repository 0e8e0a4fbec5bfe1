import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createPortalClient } from "@paysys/portal";
import { defaultPortalUser } from "@paysys/sandbox";

const cli = fileURLToPath(new URL("../../packages/sandbox/dist/cli.js", import.meta.url));
const child = spawn(process.execPath, [cli, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdout! }).on("line", (l) => {
    const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(l);
    if (m) resolve(m[1]!);
  }),
);
const portalUrl = `${url}/portal`;
const solveCaptcha = async ({ captchaSession }: { captchaSession: string }) =>
  (await (await fetch(`${url}/__sandbox/portal/captcha?session=${captchaSession}`)).json()).text as string;
let token = "";
const plain = createPortalClient({
  baseUrl: portalUrl,
  credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw },
  solveCaptcha,
  validateResponses: false,
  authorize: (t) => {
    token = t;
    return { Authorization: `Bearer ${t}` };
  },
});
const params = { dateFrom: "20240501000000", dateTo: "20240501235959", subOn: true };
await plain.reports.payments(params);
const body = JSON.stringify({ params });
const req = () => fetch(`${portalUrl}/v2/report/payments`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body });
const variants: Record<string, () => Promise<unknown>> = {
  json: async () => ((await (await req()).json()) as { data: unknown }).data,
  buffer: async () => {
    const r = await req();
    const b = new Uint8Array(await r.arrayBuffer());
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b)).data;
  },
  bufferCL: async () => {
    const r = await req();
    Number(r.headers.get("content-length"));
    const b = new Uint8Array(await r.arrayBuffer());
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b)).data;
  },
  client: () => plain.reports.payments(params),
};
const time = async (fn: () => Promise<unknown>, n: number) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - t) / n) * 1000;
};
const mode = process.argv[2] ?? "client";
const f = variants[mode]!;
await time(f, 300);
console.log(mode, (await time(f, 4000)).toFixed(1), "µs");
child.kill();
