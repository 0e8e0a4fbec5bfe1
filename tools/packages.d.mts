export interface PublishedPackage {
  dir: string;
  path: string;
  pkg: { name: string; description: string; version: string; exports: Record<string, unknown>; [key: string]: unknown };
}
export declare function publishedPackages(root: string): PublishedPackage[];
