/** A free loopback port: asked of the OS, then released for the server about to take it. */
export function freePort(): Promise<number>;
