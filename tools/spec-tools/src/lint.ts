// `pnpm lint:specs`, second half: our own rules (Redocly runs first).
import { lintAll } from "./rules.js";

const problems = lintAll();
for (const p of problems) console.error(`error  ${p}`);
if (problems.length > 0) {
  console.error(`\nspec rules: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log("spec rules: every operation sourced and idempotency declared, every gap worded, every source classified, every secret marked, every example valid");
