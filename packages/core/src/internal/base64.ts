// Standard Base64 (RFC 4648 §4, with padding) of bytes, the same in Node and browsers: `btoa`
// exists in both, `Buffer` only in Node. Chunks keep `String.fromCharCode` under the argument limit.

/** Standard Base64 of `bytes`. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
