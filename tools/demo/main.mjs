// `npm start`: starts the sandbox on loopback and drives every client against it, printing
// what a user would see. Plain JavaScript on purpose: this is how the built packages are used.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPortalClient, ServiceError } from "@paysys/portal";
import { saveToFile } from "@paysys/portal/node";
import { defaultPortalUser, startSandbox } from "@paysys/sandbox";

const sandbox = await startSandbox();
console.log(`sandbox listening on ${sandbox.url}\n`);

try {
  for (const version of ["v2", "v1"]) {
    console.log(`== partner portal ${version}`);
    const portal = createPortalClient({
      baseUrl: sandbox.portalUrl,
      version,
      credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw },
      // A real integration shows the captcha image to a person; the sandbox can tell its text.
      solveCaptcha: async ({ captchaSession }) => {
        const answer = await fetch(`${sandbox.url}/__sandbox/portal/captcha?session=${captchaSession}`).then((r) => r.json());
        return answer.text;
      },
    });
    const me = await portal.user.profile();
    console.log(`signed in as ${me.lgn} (${me.userFIO}, ${me.groupName})`);
    const agents = await portal.agents.list({ sub: 2, columns: ["nowBalance", "contract"] });
    console.log(`agents in scope: ${agents.length}; first: ${JSON.stringify(agents[0])}`);
    const terminals = await portal.terminals.list({ sub: 2, active: 1 });
    console.log(`active terminals: ${terminals.length}`);
    const payments = await portal.reports.payments({ dateFrom: new Date("2024-05-01T00:00:00+05:00"), dateTo: new Date("2024-05-31T23:59:59+05:00"), subOn: true });
    const total = payments.reduce((tiyn, p) => tiyn + Math.round(p.amount * 100), 0) / 100;
    console.log(`payments in May 2024: ${payments.length}, total ${total.toFixed(2)} KZT`);
    const turnovers = await portal.reports.terminalTurnovers({ dateFrom: "20240501", dateTo: "20240507", subOn: true });
    console.log(`terminal turnovers (first week): ${turnovers.length} rows`);
    const file = await portal.reports.dealerStatistics({ dateFrom: "20240501", dateTo: "20240531", subOn: true, groupByDay: true, format: "xlsx" });
    const path = join(mkdtempSync(join(tmpdir(), "paysys-demo-")), `statreport-${version}.xlsx`);
    console.log(`dealer statistics as xlsx: ${await saveToFile(file, path)} bytes saved to ${path}`);
    try {
      await portal.reports.payments({ dateFrom: "20230101", dateTo: "20240101" });
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      console.log(`a refused request is a typed error: ${e.name} code ${e.serviceCode}${e.serviceMessage ? `: ${e.serviceMessage}` : " (v1 answers carry no message)"}`);
    }
    await portal.close();
    console.log("logged out\n");
  }
  console.log("cash-out, fiscal and e-commerce clients: specs are written (specs/), their packages are not built yet.");
} finally {
  await sandbox.close();
}
