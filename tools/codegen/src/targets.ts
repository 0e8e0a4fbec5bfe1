// What is generated where. A package lists its specs (each gets a folder under `src/generated/`),
// the codecs its specs name (with the TypeScript type callers pass for each), and, if it has
// client options, the settings interface to turn into a validator.

export interface CodecType {
  /** The TypeScript type of what callers pass. */
  type: string;
  /** Where the type is exported: a package (`@paysys/core`) or a module path relative to the package's `src/`. */
  from: string;
}

export interface SpecTarget {
  /** Spec name from @paysys/spec-tools. */
  spec: string;
  /** Folder under src/generated/ ("" for the folder itself). */
  dir: string;
  /** Prefix of the generated facade type names (`PortalV2` → `PortalV2Methods`). */
  typePrefix: string;
}

export interface PackageTarget {
  pkg: string;
  specs: SpecTarget[];
  codecs: Record<string, CodecType>;
  /** Plain-data client settings (a TypeScript interface) to turn into a JSON Schema validator. */
  settings?: { file: string; type: string };
}

const core = (type: string): CodecType => ({ type, from: "@paysys/core/calls" });

export const targets: PackageTarget[] = [
  {
    pkg: "portal",
    specs: [
      { spec: "portal-v2", dir: "v2", typePrefix: "PortalV2" },
      { spec: "portal-v1", dir: "v1", typePrefix: "PortalV1" },
    ],
    codecs: {
      "portal-date": { type: "PortalDateInput", from: "dates.js" },
      "portal-date-end": { type: "PortalDateInput", from: "dates.js" },
      flag: { type: "FlagInput", from: "codecs.js" },
    },
    settings: { file: "src/options.ts", type: "PortalClientSettings" },
  },
  {
    pkg: "fiscal",
    specs: [{ spec: "fiscal", dir: "", typePrefix: "Fiscal" }],
    codecs: { tenge: core("TengeInput"), rfc3339: core("DateTimeInput"), "comma-list": core("ListInput") },
    settings: { file: "src/options.ts", type: "FiscalClientSettings" },
  },
  {
    pkg: "ecommerce",
    specs: [{ spec: "ecommerce", dir: "", typePrefix: "Ecommerce" }],
    codecs: { "card-cryptogram": { type: "CardDataInput", from: "card.js" } },
    settings: { file: "src/options.ts", type: "EcommerceClientSettings" },
  },
  {
    pkg: "cashout",
    specs: [{ spec: "cashout", dir: "", typePrefix: "Cashout" }],
    codecs: {},
    settings: { file: "src/options.ts", type: "CashoutClientSettings" },
  },
];
