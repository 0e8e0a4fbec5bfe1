// The version bump a change requires (the policy of the README's contributing section):
//   0.x: breaking → minor, compatible → patch, documentation only → none
//   1.x and later: breaking → major, compatible → minor, documentation only → none
// "Compatible" includes new operations and fields: in 0.x they ride on a patch, as changesets
// treats 0.x minors as the breaking line.
import { bumpsIn } from "../../release/changesets.mjs";
import type { Level } from "./spec-diff.js";

export type Bump = "none" | "patch" | "minor" | "major";
export const bumps: readonly Bump[] = ["none", "patch", "minor", "major"];

export function requiredBump(level: Level | undefined, version: string): Bump {
  if (level === undefined || level === "documentation") return "none";
  const zero = version.startsWith("0.");
  if (level === "breaking") return zero ? "minor" : "major";
  return zero ? "patch" : "minor";
}

export const higher = (a: Bump, b: Bump): Bump => (bumps.indexOf(a) >= bumps.indexOf(b) ? a : b);
export const lowerThan = (a: Bump, b: Bump): boolean => bumps.indexOf(a) < bumps.indexOf(b);

/** The highest bump the pending changesets give a package ("none" when none names it). */
export const pendingBump = (changesets: readonly string[], name: string): Bump =>
  changesets
    .flatMap(bumpsIn)
    .filter(([n]) => n === name)
    .reduce<Bump>((top, [, bump]) => higher(top, bump), "none");
