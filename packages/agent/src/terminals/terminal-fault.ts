/** A refused terminal request; the RPC loop answers it as a JSON-RPC error with this code. */
export class TerminalFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "TerminalFault";
  }
}
