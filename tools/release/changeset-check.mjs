#!/usr/bin/env node
// `pnpm changeset:check`: fails when a published package changed since its last release and no
// pending changeset names it.
import { missingChangesets, readRepository } from "./changesets.mjs";

const root = new URL("../..", import.meta.url).pathname;
const { changed, changesets } = readRepository(root);
const problems = missingChangesets(changed, changesets);
for (const p of problems) console.error(`error  ${p}`);
if (problems.length) process.exit(1);
console.log(
  `changesets: every changed package has one (${Object.entries(changed)
    .map(([n, f]) => `${n}: ${f.length} file(s) changed`)
    .join(", ")})`,
);
