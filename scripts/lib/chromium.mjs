// How Berth's e2e tests and bench:web launch Debian's chromium (browsers cannot be downloaded here).

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * Chromium builds its address-bar popup as a WebUI page, in a renderer of its own, for every new window,
 * and headless Chromium opens a window for every browser context. Each test or measured visit then shared
 * the 2 cores with about 1.1 s of CPU spent on Chrome's own UI (a trace of one IDE page load: 1.15 s in the
 * "WebUI Top Renderer", browser process 0.48 s instead of 0.25 s), which a developer's browser spends once
 * per window, not on every page load.
 */
const WITHOUT_CHROME_UI = "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup";

/** Arguments for chromium.launch; `chromeUi: true` keeps Chrome's own UI work, to measure what it costs. */
export function chromiumArgs({ chromeUi = false } = {}) {
  return [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    ...(chromeUi ? [] : [WITHOUT_CHROME_UI]),
  ];
}
