// Real servers for the tests, started on free ports in temporary folders. Each starter answers a
// RunningServer; the tests stop it after, and may restart it in the middle (an outage).
export { freePort, type RunningServer, temporaryFolder } from "./common.js";
export { startPostgres } from "./postgres.js";
export { startRedis } from "./redis.js";
