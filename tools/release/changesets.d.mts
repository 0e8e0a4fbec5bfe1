export declare function bumpsIn(changeset: string): [string, "major" | "minor" | "patch"][];
export declare function packagesIn(changeset: string): string[];
export declare function missingChangesets(changedByPackage: Record<string, string[]>, changesets: string[]): string[];
export declare function lastReleaseCommit(root: string, folder: string): string;
export declare function releasesOf(root: string, folder: string): { commit: string; date: string; version: string }[];
export declare function readRepository(root: string): { changed: Record<string, string[]>; changesets: string[] };
