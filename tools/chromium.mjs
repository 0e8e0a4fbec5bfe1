// Headless Chromium for the browser tests: Debian's package, driven by playwright-core. A browser
// is never downloaded. As root Chromium needs --no-sandbox; the networking flags keep it from
// trying the (closed) network on its own.
import { chromium } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--metrics-recording-only",
  "--no-default-browser-check",
];

/** Launches Debian's Chromium headless. */
export function launchChromium() {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
}
