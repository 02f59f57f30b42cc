"use client";
import { Fragment, useState, type FormEvent } from "react";
import { acceptMcpTool, listMcpServers, listMcpToolPins, registerMcpServer, removeMcpServer, type McpServer, type McpServerInput, type McpToolPin } from "@/lib/api";
import { formatRelative } from "@/lib/format";
import { confirmThen, useAction } from "@/components/ui/use-action";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState, StatusBadge } from "@/components/ui/states";
import { Loaded } from "@/components/ui/loaded";

/** `Name: value` per line → headers; the first line that is not one is named in the error. */
function parseHeaders(text: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return `headers, line ${index + 1}: write it as "Name: value"`;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * MCP servers whose tools agents reach through the gateway: the caller's own (`user`) and everyone's
 * (`global`, registered by operators). Each tool's schema is pinned when first listed; a changed one is
 * held (every call asks) until an operator accepts the new schema here. Header values never come back
 * from the runner: only their names.
 */
export function McpServers({ canManageGlobal, userId }: { canManageGlobal: boolean; userId: string }) {
  const servers = useAsync(listMcpServers, []);
  const [open, setOpen] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [transport, setTransport] = useState<"http" | "stdio">("http");
  const [scope, setScope] = useState<"user" | "global">("user");
  const [url, setUrl] = useState("");
  const [headers, setHeaders] = useState("");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const registering = useAction();

  const register = (event: FormEvent) => {
    event.preventDefault();
    const input: McpServerInput = { name: name.trim(), transport, scope };
    if (transport === "http") {
      input.url = url.trim();
      const parsed = parseHeaders(headers);
      if (typeof parsed === "string") return registering.setError(parsed);
      if (Object.keys(parsed).length) input.headers = parsed;
    } else {
      input.command = command.trim();
      const list = args.split("\n").map((line) => line.trim()).filter(Boolean);
      if (list.length) input.args = list;
    }
    void registering.run(async () => {
      await registerMcpServer(input);
      setName("");
      setUrl("");
      setHeaders("");
      setCommand("");
      setArgs("");
      await servers.reload();
    });
  };

  const remove = (server: McpServer) =>
    confirmThen(`Remove the MCP server "${server.name}"? Its tools disappear from every session that could see them.`, () => removeMcpServer(server.id), servers.reload);

  return (
    <section className="card" data-testid="mcp-servers">
      <div className="card-title">
        <h2>MCP servers</h2>
        <span className="muted tiny">Their tools reach agents through the gateway, under the same policy and approvals as Berth&apos;s own.</span>
      </div>
      <Loaded
        state={servers}
        loading="Loading MCP servers…"
        empty={
          <EmptyState title="No MCP servers" testId="mcp-servers-empty">
            Register one below: an http server the runner calls, or a stdio one started inside each session&apos;s container.
          </EmptyState>
        }
      >
        {(list) => (
          <table className="table compact" data-testid="mcp-servers-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Scope</th>
                <th>Reached at</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((server) => (
                <Fragment key={server.id}>
                  <tr data-testid="mcp-server-row" data-name={server.name}>
                    <td className="mono">{server.name}</td>
                    <td>
                      <span className="badge muted">{server.scope === "global" ? "everyone" : server.ownerUserId === userId ? "mine" : `user ${server.ownerUserId}`}</span>
                    </td>
                    <td className="mono tiny">
                      {server.transport === "http" ? server.url : `${server.command} ${(server.args ?? []).join(" ")} (in the session's container)`}
                      {server.headerNames?.length ? <div className="muted">headers: {server.headerNames.join(", ")}</div> : null}
                    </td>
                    <td className="muted">{formatRelative(server.createdAt)}</td>
                    <td>
                      <div className="row">
                        <button className="btn small" onClick={() => setOpen(open === server.id ? null : server.id)} data-testid="mcp-server-tools">
                          {open === server.id ? "Hide tools" : "Tools"}
                        </button>
                        <button className="btn small ghost danger" onClick={() => void remove(server)} data-testid="mcp-server-remove">
                          Remove
                        </button>
                      </div>
                    </td>
                  </tr>
                  {open === server.id ? (
                    <tr>
                      <td colSpan={5}>
                        <ToolPins server={server} canAccept={canManageGlobal} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>

      <form className="form settings-form" onSubmit={register} data-testid="mcp-server-form">
        <div className="row wrap">
          <label className="field">
            <span>Name</span>
            <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={64} placeholder="docs" className="mono" data-testid="mcp-name" />
          </label>
          <label className="field">
            <span>Transport</span>
            <select value={transport} onChange={(event) => setTransport(event.target.value as "http" | "stdio")} data-testid="mcp-transport">
              <option value="http">http (the runner calls it)</option>
              <option value="stdio">stdio (runs in the session&apos;s container)</option>
            </select>
          </label>
          <label className="field">
            <span>Who sees its tools</span>
            <select value={scope} onChange={(event) => setScope(event.target.value as "user" | "global")} data-testid="mcp-scope">
              <option value="user">only me</option>
              {canManageGlobal ? <option value="global">everyone</option> : null}
            </select>
          </label>
          {transport === "http" ? (
            <label className="field grow">
              <span>URL</span>
              <input value={url} onChange={(event) => setUrl(event.target.value)} required placeholder="https://mcp.example.com/mcp" className="mono" data-testid="mcp-url" />
            </label>
          ) : (
            <label className="field grow">
              <span>Command (a program in the sandbox image)</span>
              <input value={command} onChange={(event) => setCommand(event.target.value)} required placeholder="npx" className="mono" data-testid="mcp-command" />
            </label>
          )}
        </div>
        <label className="field">
          {transport === "http" ? (
            <>
              <span>Headers, one &quot;Name: value&quot; per line (kept by the runner, never shown again)</span>
              <textarea value={headers} onChange={(event) => setHeaders(event.target.value)} rows={2} className="mono" placeholder="Authorization: Bearer …" data-testid="mcp-headers" />
            </>
          ) : (
            <>
              <span>Arguments, one per line</span>
              <textarea value={args} onChange={(event) => setArgs(event.target.value)} rows={2} className="mono" placeholder="-y&#10;@modelcontextprotocol/server-everything" data-testid="mcp-args" />
            </>
          )}
        </label>
        <div className="row">
          <button className="btn primary" type="submit" disabled={registering.busy || !name.trim()} data-testid="register-mcp-server">
            {registering.busy ? "Registering…" : "Register server"}
          </button>
          {registering.error ? (
            <span className="notice bad" data-testid="mcp-server-error">
              {registering.error}
            </span>
          ) : null}
        </div>
      </form>
    </section>
  );
}

/** A server's tools as last listed, with the schema each is pinned to; a held one can be accepted by an operator. */
function ToolPins({ server, canAccept }: { server: McpServer; canAccept: boolean }) {
  const pins = useAsync(() => listMcpToolPins(server.id), [server.id]);
  const accepting = useAction();
  const accept = (pin: McpToolPin) =>
    accepting.run(async () => {
      try {
        await acceptMcpTool(server.id, pin.toolName, pin.schemaHash);
      } finally {
        await pins.reload();
      }
    });
  const empty = (
    <p className="muted tiny" data-testid="mcp-pins-empty">
      No tools listed yet: they are listed, and their schemas pinned, the first time a session looks for them.
    </p>
  );
  return (
    <Loaded state={pins} loading="Loading tools…" empty={empty}>
      {(list) => (
        <div data-testid="mcp-pins">
          <table className="table compact">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Schema</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((pin) => (
                <tr key={pin.toolName} data-testid="mcp-pin-row" data-tool={pin.toolName}>
                  <td className="mono">{pin.toolName}</td>
                  <td className="mono tiny" title={`now ${pin.schemaHash}, accepted ${pin.acceptedHash}`}>
                    {pin.status === "held" ? `${pin.acceptedHash.slice(0, 12)}… → ${pin.schemaHash.slice(0, 12)}…` : `${pin.schemaHash.slice(0, 12)}…`}
                  </td>
                  <td>
                    <StatusBadge value={pin.status} />
                    {pin.status === "held" ? <span className="muted tiny"> its schema changed: every call asks an operator</span> : null}
                  </td>
                  <td>
                    {pin.status === "held" && canAccept ? (
                      <button className="btn small" onClick={() => void accept(pin)} data-testid="mcp-accept">
                        Accept new schema
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {accepting.error ? <ErrorState message={accepting.error} /> : null}
        </div>
      )}
    </Loaded>
  );
}
