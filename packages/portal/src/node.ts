// @paysys/portal/node: Node-only helpers (saving xlsx reports to disk).
export { saveToFile } from "@paysys/core/node";
