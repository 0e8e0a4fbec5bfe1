// The smoke calls of tools/release/smokes.mjs as programs a consumer runs: ESM, CommonJS or
// TypeScript, calling the sandbox whose address is in $PAYSYS_SANDBOX_URL, printing "smoke: <line>".

/** The smoke as an ESM module, a CJS script or TypeScript: the import line, then the body run against the sandbox at $PAYSYS_SANDBOX_URL. */
export function program(pkg, smoke, flavour) {
  const names = smoke.imports.join(", ");
  const typed = flavour === "ts";
  const imports =
    flavour === "cjs"
      ? `const { ${names} } = require("${pkg}");`
      : `import { ${names} } from "${pkg}";${typed ? "\ndeclare const process: { env: Record<string, string | undefined>; exit(code: number): never };" : ""}`;
  return `${imports}
async function smoke(sandbox${typed ? ": { url: string }" : ""}) {
${smoke.body}
}
smoke({ url: process.env.PAYSYS_SANDBOX_URL${typed ? " ?? ''" : ""} }).then(
  (line) => console.log("smoke: " + line),
  (e) => { console.error(e); process.exit(1); },
);
`;
}

export function expectOk(label, smoke, output) {
  const line = output.split("\n").find((l) => l.startsWith("smoke: "));
  if (!line || !smoke.expect.test(line.slice("smoke: ".length))) throw new Error(`${label}: unexpected output:\n${output}`);
  return line;
}
