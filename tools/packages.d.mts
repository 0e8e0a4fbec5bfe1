export interface PublishedPackage {
  dir: string;
  path: string;
  pkg: { name: string; description: string; version: string; exports: Record<string, unknown>; paysys?: { browser?: boolean }; [key: string]: unknown };
}
export declare function publishedPackages(root: string): PublishedPackage[];
