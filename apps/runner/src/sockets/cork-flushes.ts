import type { Socket } from "socket.io";

/** The parts of engine.io's WebSocket transport this reaches into: its send of a flush, and the TCP socket under ws. */
interface WebSocketTransport {
  name: string;
  send(packets: unknown[]): void;
  socket?: { _socket?: { cork(): void; uncork(): void } };
}

const corked = new WeakSet<object>();

function corkSends(transport: WebSocketTransport | undefined): void {
  if (transport?.name !== "websocket" || corked.has(transport)) return;
  corked.add(transport);
  const send = transport.send.bind(transport);
  transport.send = (packets) => {
    const tcp = transport.socket?._socket;
    tcp?.cork();
    try {
      send(packets);
    } finally {
      tcp?.uncork();
    }
  };
}

/**
 * Writes each flush of a connection's queued packets to its TCP socket at once. engine.io hands ws the packets
 * of a flush one by one and ws writes each frame on its own (an output event is two: its JSON and its bytes),
 * so a client whose queue grew while its socket was busy cost a syscall per frame; corked, the flush is one writev.
 */
export function corkFlushes(socket: Socket): void {
  const conn = socket.conn as unknown as { transport?: WebSocketTransport; on(event: "upgrade", listener: (transport: WebSocketTransport) => void): void };
  corkSends(conn.transport);
  conn.on("upgrade", corkSends);
}
