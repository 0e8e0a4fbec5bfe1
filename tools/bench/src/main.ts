// `pnpm bench`: what the SDK costs, as ratios against baselines measured in the same run, so
// the numbers compare on any machine. It prints; it never fails (goals are shown beside results).
//   1. client CPU overhead per call, with a stub fetch (no network)
//   2. portal client vs raw fetch, same request, sandbox in another process (validation off / on)
//   3. response validation of a 100k-row payments report vs JSON.parse of it
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createPortalClient, type OperationSpec } from "@paysys/portal";
import { v2Operations } from "@paysys/portal/spec";
import { createDataSet, defaultPortalUser } from "@paysys/sandbox";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = async (fn: () => Promise<unknown> | unknown, n: number) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t) / n;
};
const rows: string[][] = [];
const report = (what: string, value: string, goal = "") => rows.push([what, value, goal]);

// 1. Overhead per call with a stub fetch.
{
  const body = JSON.stringify({ code: 0, message: "OK", result: { idUser: 1, lgn: "x" } });
  const stub = async () => new Response(body, { headers: { "content-type": "application/json" } });
  // Tokens are not the subject here: user.profile needs one, so the client signs in once.
  const signed = createPortalClient({ baseUrl: "http://stub.invalid", fetch: stub, extractTokens: () => ({ accessToken: "t" }) });
  await signed.signIn({ lgn: "a", psw: "b", captcha: "c", captchaSession: "s" });
  const n = 20_000;
  await time(() => signed.user.profile({ idUser: 1 }), 2_000); // warm-up
  const stubOnly: number[] = [];
  const client: number[] = [];
  for (let round = 0; round < 5; round++) {
    stubOnly.push(await time(async () => (await stub()).json(), n));
    client.push(await time(() => signed.user.profile({ idUser: 1 }), n));
  }
  report(
    "client CPU overhead per call (stub fetch)",
    `${((median(client) - median(stubOnly)) * 1000).toFixed(1)} µs (client ${(median(client) * 1000).toFixed(1)} µs, stub alone ${(median(stubOnly) * 1000).toFixed(1)} µs)`,
  );
}

// 2. Client vs raw fetch against the sandbox in its own process.
{
  const cli = fileURLToPath(new URL("../../../packages/sandbox/dist/cli.js", import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [cli, "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = line.match(/^paysys sandbox on (\S+)/);
      if (m) resolve(m[1]!);
    });
  });
  try {
    const portalUrl = `${url}/portal`;
    const solveCaptcha = async ({ captchaSession }: { captchaSession: string }) =>
      (await (await fetch(`${url}/__sandbox/portal/captcha?session=${captchaSession}`)).json()).text as string;
    const make = (validateResponses: boolean) =>
      createPortalClient({ baseUrl: portalUrl, credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw }, solveCaptcha, validateResponses });
    const plain = make(false);
    const validating = make(true);
    const params = { dateFrom: "20240501000000", dateTo: "20240501235959", subOn: true };
    await plain.reports.payments(params);
    await validating.reports.payments(params);
    // The raw baseline sends the same bytes with the same token and parses the answer.
    let token = "";
    const authorize = (t: string) => {
      token = t;
      return { Authorization: `Bearer ${t}` };
    };
    const tokenSpy = createPortalClient({ baseUrl: portalUrl, credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw }, solveCaptcha, authorize });
    await tokenSpy.user.me();
    const body = JSON.stringify({ params });
    const rawCall = async () => {
      const r = await fetch(`${portalUrl}/v2/report/payments`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body });
      const json = (await r.json()) as { code: number; data: unknown[] };
      if (json.code !== 0) throw new Error("raw call failed");
      return json.data;
    };
    const n = 400;
    for (const f of [rawCall, () => plain.reports.payments(params), () => validating.reports.payments(params)]) await time(f, 100);
    const raw: number[] = [];
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < 5; round++) {
      raw.push(await time(rawCall, n));
      off.push(await time(() => plain.reports.payments(params), n));
      on.push(await time(() => validating.reports.payments(params), n));
    }
    report("raw fetch, payments report (40 rows), per call", `${(median(raw) * 1000).toFixed(0)} µs`);
    report("portal client / raw fetch, validation off", (median(off) / median(raw)).toFixed(3), "≤ 1.10");
    report("portal client / raw fetch, validation on", (median(on) / median(raw)).toFixed(3), "≤ 1.25");
  } finally {
    child.kill();
  }
}

// 3. Validation of a 100k-row report vs JSON.parse of it.
{
  const data = createDataSet({ paymentsPerDay: 1000 });
  const payments = [];
  for (let d = 1; payments.length < 100_000; d++) payments.push(...data.paymentsOn(`202401${String(1 + (d % 28)).padStart(2, "0")}`));
  const text = JSON.stringify({ code: 0, message: "OK", data: payments.slice(0, 100_000) });
  const validate = (v2Operations as Record<string, OperationSpec>)["reports.payments"]!.validateResponse!;
  const parse: number[] = [];
  const check: number[] = [];
  for (let round = 0; round < 7; round++) {
    let parsed: unknown;
    parse.push(await time(() => (parsed = JSON.parse(text)), 1));
    check.push(
      await time(() => {
        if (!validate(parsed)) throw new Error("validation failed");
      }, 1),
    );
  }
  report(`JSON.parse of 100k rows (${(text.length / 1e6).toFixed(1)} MB)`, `${median(parse).toFixed(1)} ms`);
  report("response validation / JSON.parse, 100k rows", (median(check) / median(parse)).toFixed(3), "≤ 0.5");
}

const width = Math.max(...rows.map((r) => r[0]!.length));
console.log(`\npaysys SDK bench (node ${process.version}, ${new Date().toISOString()})\n`);
for (const [what, value, goal] of rows) console.log(`${what!.padEnd(width)}  ${value!.padEnd(20)} ${goal ? `goal ${goal}` : ""}`);
