"use client";
import { useMemo, useState, type FormEvent } from "react";

type Node = { name: string; path: string; children: Map<string, Node> | null };

function buildTree(files: string[]): Node {
  const root: Node = { name: "", path: "", children: new Map() };
  for (const file of files) {
    const parts = file.split("/").filter(Boolean);
    let node = root;
    parts.forEach((part, index) => {
      const isFile = index === parts.length - 1;
      const path = parts.slice(0, index + 1).join("/");
      let child = node.children?.get(part);
      if (!child) {
        child = { name: part, path, children: isFile ? null : new Map() };
        node.children?.set(part, child);
      }
      node = child;
    });
  }
  return root;
}

function sorted(node: Node): Node[] {
  return [...(node.children?.values() ?? [])].sort((a, b) => {
    if (!!a.children !== !!b.children) return a.children ? -1 : 1;
    return a.name.localeCompare(b.name);
  });
}

export function FileTree({
  files,
  activePath,
  dirty,
  onOpen,
  onCreate,
  loading,
  error,
}: {
  files: string[];
  activePath: string | null;
  dirty: Set<string>;
  onOpen: (path: string) => void;
  onCreate: (path: string) => Promise<void>;
  loading: boolean;
  error: string | null;
}) {
  const tree = useMemo(() => buildTree(files), [files]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const [newPath, setNewPath] = useState("");
  const [createError, setCreateError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const path = newPath.trim().replace(/^\/+/, "");
    if (!path) return;
    try {
      await onCreate(path);
      setNewPath("");
      setCreating(false);
      setCreateError(null);
    } catch (caught) {
      setCreateError((caught as Error).message);
    }
  };

  const render = (node: Node, depth: number) =>
    sorted(node).map((child) => {
      if (child.children) {
        const isCollapsed = collapsed.has(child.path);
        return (
          <div key={child.path}>
            <button
              className="tree-item folder"
              style={{ paddingLeft: 10 + depth * 12 }}
              onClick={() =>
                setCollapsed((old) => {
                  const next = new Set(old);
                  if (next.has(child.path)) next.delete(child.path);
                  else next.add(child.path);
                  return next;
                })
              }
            >
              <span className="caret">{isCollapsed ? "▸" : "▾"}</span> {child.name}
            </button>
            {isCollapsed ? null : render(child, depth + 1)}
          </div>
        );
      }
      return (
        <button
          key={child.path}
          className={`tree-item file${child.path === activePath ? " active" : ""}`}
          style={{ paddingLeft: 22 + depth * 12 }}
          onClick={() => onOpen(child.path)}
          data-testid="tree-file"
          data-path={child.path}
          title={child.path}
        >
          {child.name}
          {dirty.has(child.path) ? <span className="dot" aria-label="unsaved" /> : null}
        </button>
      );
    });

  return (
    <div className="file-tree" data-testid="file-tree">
      <div className="panel-title">
        Files
        <button className="btn ghost tiny-btn" title="New file" onClick={() => setCreating((v) => !v)} data-testid="new-file">
          +
        </button>
      </div>
      {creating ? (
        <form onSubmit={(event) => void submit(event)} className="new-file-form">
          <input
            autoFocus
            value={newPath}
            placeholder="path/to/file.py"
            onChange={(event) => setNewPath(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setCreating(false);
            }}
            data-testid="new-file-input"
          />
          {createError ? <div className="tiny bad-text">{createError}</div> : null}
        </form>
      ) : null}
      <div className="tree-body">
        {error ? (
          <div className="state error tiny">⚠ {error}</div>
        ) : loading && files.length === 0 ? (
          <div className="state loading tiny">Loading files…</div>
        ) : files.length === 0 ? (
          <div className="empty tiny" data-testid="files-empty">
            <strong>Empty workspace</strong>
            <span className="muted">Press + to create a file.</span>
          </div>
        ) : (
          render(tree, 0)
        )}
      </div>
    </div>
  );
}
