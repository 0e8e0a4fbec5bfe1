// `pnpm gaps`: how complete each interface is. `--json` prints the report for other tools.
import { gapReport } from "./report.js";

const report = gapReport();
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const verbose = process.argv.includes("--verbose");
  for (const r of report) {
    const f = r.factsBySource;
    console.log(`\n== ${r.spec}: ${r.title}`);
    console.log(
      `   operations known: ${r.operations.length}   gaps open: ${r.gaps.length}   facts by source: document ${f.document}, official page ${f.official}, third-party code ${f["third-party"]}, server sample ${f["server-sample"]}`,
    );
    for (const o of r.operations) {
      console.log(`   ${o.method.padEnd(7)} ${o.path.padEnd(28)} ${o.id.padEnd(34)} from ${o.sources.join(" + ").padEnd(28)} ${o.gaps} gap(s)`);
    }
    for (const m of r.missingOperations) console.log(`   (not shown) ${m}`);
    if (verbose) for (const g of r.gaps) console.log(`   gap ${g.where}: ${g.text.replace(/\s+/g, " ")}`);
  }
  const total = report.reduce((n, r) => n + r.gaps.length, 0);
  console.log(`\n${report.reduce((n, r) => n + r.operations.length, 0)} operations, ${total} gaps open (pnpm gaps --verbose lists each gap at its place)`);
}
