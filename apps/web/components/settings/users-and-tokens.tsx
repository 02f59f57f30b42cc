"use client";
import { useState, type FormEvent } from "react";
import { ROLES, createUser, deleteUser, issueToken, listTokens, listUsers, revokeToken, setUserDisabled, type ApiTokenInfo, type Role, type User } from "@/lib/api";
import { confirmThen, useAction } from "@/components/ui/use-action";
import { formatRelative } from "@/lib/format";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { Loaded } from "@/components/ui/loaded";
import { CopyField } from "@/components/ui/copy-field";

const ROLE_HELP: Record<Role, string> = {
  admin: "everything, including users and tokens",
  operator: "approves calls, sets policy rules, registers global MCP servers",
  developer: "own sessions, runs and MCP servers",
  viewer: "reads runs, receipts and approvals",
};

/** The user BERTH_ADMIN_TOKEN (or the generated admin token) belongs to: the runner keeps it enabled. */
const BUILT_IN_ADMIN_ID = "user_admin";

/**
 * Admin only: the people who use this runner and their API tokens. A token is shown once, when it is
 * issued (the runner stores only its hash); revoking one refuses it at once. Disabling a user refuses
 * all their tokens and ends their open connections; deleting one also removes their sessions.
 */
export function UsersAndTokens({ meId }: { meId: string }) {
  const users = useAsync(listUsers, []);
  const tokens = useAsync(listTokens, []);
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("developer");
  const [tokenFor, setTokenFor] = useState("");
  const [tokenName, setTokenName] = useState("");
  const [issued, setIssued] = useState<{ userName: string; token: string } | null>(null);
  const adding = useAction();
  const issuing = useAction();

  const addUser = (event: FormEvent) => {
    event.preventDefault();
    void adding.run(async () => {
      const user = await createUser(name.trim(), role);
      setName("");
      setTokenFor(user.id);
      await users.reload();
    });
  };

  const issue = (event: FormEvent) => {
    event.preventDefault();
    const user = users.data?.find((u) => u.id === tokenFor);
    if (!user) return issuing.setError("Choose whose token it is");
    void issuing.run(async () => {
      const { token } = await issueToken(user.id, tokenName.trim());
      setIssued({ userName: user.name, token });
      setTokenName("");
      await tokens.reload();
    });
  };

  const toggle = (user: User) =>
    confirmThen(
      user.disabled
        ? `Enable ${user.name}? Their tokens work again.`
        : `Disable ${user.name}? Their tokens are refused and their open connections end at once.`,
      async () => void (await setUserDisabled(user.id, !user.disabled)),
      users.reload,
    );

  const remove = (user: User) =>
    confirmThen(
      `Delete ${user.name}? Their sessions (containers and workspaces) are deleted and their tokens revoked; their runs and receipts stay, under their name.`,
      () => deleteUser(user.id),
      async () => {
        await users.reload();
        await tokens.reload();
      },
    );

  const revoke = (token: ApiTokenInfo) =>
    confirmThen(
      `Revoke ${token.userName}'s token${token.name ? ` "${token.name}"` : ""}? Anything signed in with it is refused from now on.`,
      () => revokeToken(token.id),
      tokens.reload,
    );

  return (
    <section className="card" data-testid="users-and-tokens">
      <div className="card-title">
        <h2>Users and tokens</h2>
        <span className="muted tiny">Each person signs in (and their agents and scripts call the API) with a token of their own.</span>
      </div>
      <Loaded state={users} loading="Loading users…" empty={null}>
        {(list) => (
          <table className="table compact" data-testid="users-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Role</th>
                <th>Tokens</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((user) => {
                const active = tokens.data?.filter((t) => t.userId === user.id && !t.revokedAt).length;
                return (
                  <tr key={user.id} data-testid="user-row" data-user={user.name} data-disabled={user.disabled ? "true" : "false"}>
                    <td>
                      {user.name} <span className="muted mono tiny">{user.id}</span>
                    </td>
                    <td>
                      <span className="badge muted" title={ROLE_HELP[user.role]}>
                        {user.role}
                      </span>
                    </td>
                    <td className="muted">
                      {active === undefined ? "…" : `${active} active`}
                      {user.disabled ? (
                        <>
                          {" "}
                          <span className="badge bad">disabled</span>
                        </>
                      ) : null}
                    </td>
                    <td className="muted">{formatRelative(user.createdAt)}</td>
                    <td className="actions">
                      {user.id === meId || user.id === BUILT_IN_ADMIN_ID ? null : (
                        <span className="row">
                          <button className="btn small ghost" onClick={() => void toggle(user)} data-testid="toggle-user">
                            {user.disabled ? "Enable" : "Disable"}
                          </button>
                          <button className="btn small ghost danger" onClick={() => void remove(user)} data-testid="delete-user">
                            Delete
                          </button>
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Loaded>

      <form className="create-session settings-form" onSubmit={addUser} data-testid="user-form">
        <label className="field grow">
          <span>New user&apos;s name</span>
          <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} placeholder="alice" data-testid="user-name" />
        </label>
        <label className="field">
          <span>Role</span>
          <select value={role} onChange={(event) => setRole(event.target.value as Role)} data-testid="user-role">
            {ROLES.map((option) => (
              <option key={option} value={option}>
                {option}: {ROLE_HELP[option]}
              </option>
            ))}
          </select>
        </label>
        <button className="btn" type="submit" disabled={adding.busy || !name.trim()} data-testid="add-user">
          Add user
        </button>
        {adding.error ? <ErrorState message={adding.error} /> : null}
      </form>

      <form className="create-session settings-form" onSubmit={issue} data-testid="token-form">
        <label className="field">
          <span>Token for</span>
          <select value={tokenFor} onChange={(event) => setTokenFor(event.target.value)} data-testid="token-user">
            <option value="">Choose a user…</option>
            {users.data?.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name} ({user.role})
              </option>
            ))}
          </select>
        </label>
        <label className="field grow">
          <span>Label (where it is used)</span>
          <input value={tokenName} onChange={(event) => setTokenName(event.target.value)} maxLength={100} placeholder="laptop, CI, agent…" data-testid="token-name" />
        </label>
        <button className="btn primary" type="submit" disabled={issuing.busy || !tokenFor} data-testid="issue-token">
          Issue token
        </button>
        {issuing.error ? <ErrorState message={issuing.error} /> : null}
      </form>

      {issued ? (
        <div className="issued-token" data-testid="issued-token">
          <div>
            <strong>{issued.userName}&apos;s new token.</strong> <span className="muted">Copy it now: it is not shown again (Berth keeps only its hash).</span>
          </div>
          <CopyField value={issued.token} testId="issued-token-value">
            <button className="btn small ghost" onClick={() => setIssued(null)}>
              Done
            </button>
          </CopyField>
        </div>
      ) : null}

      <Loaded
        state={tokens}
        loading="Loading tokens…"
        empty={
          <EmptyState title="No tokens yet" testId="tokens-empty">
            Issue one per person and per machine above.
          </EmptyState>
        }
      >
        {(list) => (
          <table className="table compact" data-testid="tokens-table">
            <thead>
              <tr>
                <th>User</th>
                <th>Label</th>
                <th>Issued</th>
                <th>Last used</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((token) => (
                <tr key={token.id} data-testid="token-row" data-user={token.userName} data-label={token.name}>
                  <td>{token.userName}</td>
                  <td>{token.name || <span className="muted">—</span>}</td>
                  <td className="muted">{formatRelative(token.createdAt)}</td>
                  <td className="muted">{token.lastUsedAt ? formatRelative(token.lastUsedAt) : "never"}</td>
                  <td>{token.revokedAt ? <span className="badge bad">revoked {formatRelative(token.revokedAt)}</span> : <span className="badge ok">active</span>}</td>
                  <td>
                    {token.revokedAt ? null : (
                      <button className="btn small ghost danger" onClick={() => void revoke(token)} data-testid="revoke-token">
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </section>
  );
}
