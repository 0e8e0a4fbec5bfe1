// Time limits for every package's tests. A test that takes a second or two alone takes several
// times longer on a 2-core CI machine while turbo runs the other suites beside it: vitest's 5 s
// (test) and 10 s (hook) defaults failed such tests there, and a test that times out keeps running
// into the next ones and fails them too. A stuck test still fails, at these limits.
export const testDefaults = { testTimeout: 30_000, hookTimeout: 60_000 };
