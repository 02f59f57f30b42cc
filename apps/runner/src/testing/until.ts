/**
 * Waits until `check` holds, polling every 50 ms; past `ms` it throws naming `what` (and what `context` says of
 * the state, so a timeout in CI shows how far it got).
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 20_000,
  context: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const state = context();
      throw new Error(`timed out waiting for ${what}${state ? ` ${state}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
