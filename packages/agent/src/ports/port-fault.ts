/** A refused port request; the RPC loop answers it as a JSON-RPC error with this code. */
export class PortFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "PortFault";
  }
}
