/**
 * A WebSocket echo server written with a raw upgrade handshake (no library in the image), to run in a session
 * (`node ws-echo.js`): one frame in, "echo: …" out on 127.0.0.1:8001; plain HTTP answers "plain". Its handshake
 * answers after 1.5 s and says whether a cookie reached it (`X-Saw-Cookie`).
 */
export const WS_ECHO_SERVER = `
const http = require("http"), crypto = require("crypto");
const server = http.createServer((req, res) => res.end("plain"));
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  // The handshake answers after 1.5 s: a slow server must not lose its socket to socket.io's 1 s sweep of upgrades it does not serve.
  setTimeout(() => socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\nX-Saw-Cookie: " + (req.headers.cookie ? "yes" : "no") + "\\r\\n\\r\\n"), 1500);
  socket.on("data", (buf) => {
    const len = buf[1] & 0x7f, mask = buf.subarray(2, 6);
    const text = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ mask[i % 4])).toString();
    const out = Buffer.from("echo: " + text);
    socket.write(Buffer.concat([Buffer.from([0x81, out.length]), out]));
  });
});
server.listen(8001, "127.0.0.1");
`;
