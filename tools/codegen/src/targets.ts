// What is generated where. A package lists its specs; each spec gets its own folder under
// `src/generated/`, and a package with client options gets their validator.

export type RequestStyle = "portal-v2" | "portal-v1";

export interface SpecTarget {
  /** Spec name from @paysys/spec-tools. */
  spec: string;
  /** Folder under src/generated/. */
  dir: string;
  /** How a method's `params` sit in the request body. */
  request: RequestStyle;
  /** Prefix of the generated facade type names (`PortalV2` → `PortalV2Methods`). */
  typePrefix: string;
}

export interface PackageTarget {
  pkg: string;
  specs: SpecTarget[];
  /** Plain-data client settings (a TypeScript interface) to turn into a JSON Schema validator. */
  settings?: { file: string; type: string };
}

export const targets: PackageTarget[] = [
  {
    pkg: "portal",
    specs: [
      { spec: "portal-v2", dir: "v2", request: "portal-v2", typePrefix: "PortalV2" },
      { spec: "portal-v1", dir: "v1", request: "portal-v1", typePrefix: "PortalV1" },
    ],
    settings: { file: "src/options.ts", type: "PortalClientSettings" },
  },
];
