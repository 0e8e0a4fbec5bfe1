// API reports: the public TypeScript surface of each published package, one API Extractor report
// (`review/<entry>.api.md`, as the Azure SDK keeps them) per entry point of its `exports`, made
// from the built declarations. They are committed, so every change to the surface shows in review;
// `pnpm api:check` fails when a report is out of date.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from "@microsoft/api-extractor";
import type { Level } from "./spec-diff.js";

export interface EntryPoint {
  /** `.`, `./spec`, … as in `exports`. */
  subpath: string;
  /** The declaration file built for it (ESM flavour). */
  types: string;
  /** The report's file name: `index.api.md`, `spec.api.md`, … */
  report: string;
}

/** The entry points of a package that carry types, from its `exports`. */
export function entryPointsOf(packageDir: string): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  return Object.entries<{ import?: { types?: string } }>(pkg.exports ?? {})
    .filter(([, target]) => typeof target === "object" && target.import?.types)
    .map(([subpath, target]) => ({
      subpath,
      types: join(packageDir, target.import!.types!),
      report: `${subpath === "." ? "index" : subpath.slice(2).replace(/\//g, "-")}.api.md`,
    }));
}

/** API Extractor prints nothing but errors: the report itself says what changed. */
function quietUnlessError(message: ExtractorMessage): void {
  message.handled = message.logLevel !== ExtractorLogLevel.Error;
}

/** The API report of one entry point, as text (the package must be built). */
export function apiReport(packageDir: string, entry: EntryPoint): string {
  if (!existsSync(entry.types)) throw new Error(`${entry.types} is missing: build the package first (pnpm build)`);
  const scratch = mkdtempSync(join(tmpdir(), "paysys-api-"));
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: packageDir,
        mainEntryPointFilePath: entry.types,
        compiler: {
          overrideTsconfig: {
            compilerOptions: { strict: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], types: [], skipLibCheck: true },
          },
        },
        apiReport: { enabled: true, reportFolder: scratch, reportTempFolder: scratch, reportFileName: entry.report.replace(/\.api\.md$/, "") },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        // Release tags (@public, @beta) are not used here: every export is public. Known limit: a
        // namespace re-export (the portal's `V1` / `V2`) is not followed by API Extractor, so the
        // portal's field types show in its spec diff and in the committed generated code, not here.
        messages: {
          extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } },
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: join(packageDir, "package.json"),
    });
    const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false, messageCallback: quietUnlessError });
    if (!result.succeeded) throw new Error(`API Extractor failed on ${entry.types}: ${result.errorCount} error(s)`);
    return readFileSync(join(scratch, entry.report), "utf8");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export const reviewFolder = (packageDir: string) => join(packageDir, "review");

/** The lines of a report that say something (API Extractor's header and blank lines aside). */
function surface(report: string | undefined): string[] {
  return (report ?? "")
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "" && !l.startsWith("## API Report File") && !l.startsWith("> Do not edit") && !l.startsWith("```"));
}

export interface ReportChange {
  level: Level;
  removed: string[];
  added: string[];
}

/**
 * How a report changed, for callers: a line of the surface removed (or changed, which removes the
 * old line) is breaking; only lines added is compatible; the same lines is no change (undefined).
 * Coarse on purpose: a widened parameter also shows as a changed line and counts as breaking; the
 * reviewer can lower the bump only by saying why in the changeset.
 */
export function compareReports(before: string | undefined, after: string | undefined): ReportChange | undefined {
  // Counted, not a set: `description?: string;` is on many members, and one of them can change.
  const counts = (lines: string[]) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const [was, is] = [counts(surface(before)), counts(surface(after))];
  const missing = (from: Map<string, number>, to: Map<string, number>) => [...from].flatMap(([line, n]) => Array<string>(Math.max(0, n - (to.get(line) ?? 0))).fill(line));
  const removed = missing(was, is);
  const added = missing(is, was);
  if (!removed.length && !added.length) return undefined;
  return { level: removed.length ? "breaking" : "compatible", removed, added };
}
