// How a check tool runs: named steps, everything it starts registered to be closed, and an exit
// code that ends the process. A step that fails after the tool started something (a sandbox, a
// browser, a server) must not leave the process waiting on it: on failure the tool closes what it
// opened, newest first, and exits non-zero at once (a leftover handle would hold CI forever).

/**
 * Runs `body({ step, opened })` and exits the process: 0 when it resolved, 1 when it threw.
 * `opened(close)` registers something to close; `step(name, fn)` prints and runs one step and
 * records it in the list printed on success.
 */
export async function checkedRun(title, body) {
  const closers = [];
  const passed = [];
  const step = async (name, fn) => {
    process.stdout.write(`… ${name}\n`);
    const started = Date.now();
    const out = await fn();
    passed.push(`${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return out;
  };
  let failed = false;
  try {
    await body({ step, opened: (close) => closers.unshift(close) });
    console.log(`\n${title} passed:`);
    for (const name of passed) console.log(`  ok  ${name}`);
  } catch (e) {
    failed = true;
    if (passed.length) console.log(`\n${title}: passed before the failure:\n${passed.map((name) => `  ok  ${name}`).join("\n")}`);
    console.error(`\n${title} FAILED: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  } finally {
    for (const close of closers)
      await Promise.resolve()
        .then(close)
        .catch(() => {});
  }
  // Exit explicitly: a step that failed may have left a handle (a socket, a timer) that would keep
  // the process, and so CI, waiting.
  process.exit(failed ? 1 : 0);
}
