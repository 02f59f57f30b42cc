"use client";
import {
  useEffect,
  useMemo,
  useRef,
  useState,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type MouseEvent,
} from "react";
import type { Parked } from "@/lib/api";
import { errorMessage } from "@/lib/api";
import { buildTree, foldersAfter, sortedChildren, type TreeNode } from "@/lib/ide/file-tree-model";
import { formatBytes, join, parentOf } from "@/lib/workspace-paths";
import { createFolder, downloadFile, downloadFolder, movePath, removePath, uploadFile } from "./tree-actions";
import styles from "./files.module.css";

type Target = { path: string; isFolder: boolean };
type Menu = { x: number; y: number; target: Target | null };
type Creating = { kind: "file" | "folder"; folder: string };
type Upload = { name: string; bytes: number; state: "waiting" | "sending" | "done" | "failed"; error?: string };

/** The MIME type a tree item carries while dragged (a desktop file carries Files instead). */
const DRAG_TYPE = "application/x-berth-path";

export type FileTreeProps = {
  sessionId?: string;
  files: string[];
  activePath: string | null;
  dirty: Set<string>;
  onOpen: (path: string) => void;
  onCreate: (path: string) => Promise<void>;
  /** Called after an action changed the workspace (the IDE lists it again; file:changed follows too). */
  onChanged?: () => void;
  onParked?: (parked: Parked) => void;
  loading: boolean;
  error: string | null;
};

/**
 * The workspace's files as a tree, with the actions of a desktop editor's explorer: a context menu and
 * keys (F2 rename inline, Del delete after a confirm naming what goes, Enter open), new file / new
 * folder, drag onto a folder to move, files dropped from the desktop uploaded, a file downloaded.
 * Changes go through the tools (tree-actions.ts); the list itself follows `file:changed` in the IDE.
 */
export function FileTree({ sessionId, files, activePath, dirty, onOpen, onCreate, onChanged, onParked, loading, error }: FileTreeProps) {
  // Empty folders made here: glob lists files only, so they are kept until a file shows inside them.
  const [madeFolders, setMadeFolders] = useState<Set<string>>(new Set());
  const tree = useMemo(() => buildTree(files, madeFolders), [files, madeFolders]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState<Creating | null>(null);
  const [newPath, setNewPath] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const [menu, setMenu] = useState<Menu | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [renameTo, setRenameTo] = useState("");
  const [dropOn, setDropOn] = useState<string | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [actionError, setActionError] = useState<string | null>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const renamingRef = useRef<string | null>(null);
  const opts = { onParked };

  const folderOf = (target: Target | null) => (target ? (target.isFolder ? target.path : parentOf(target.path)) : "");

  const act = async (what: () => Promise<void>) => {
    setActionError(null);
    try {
      await what();
      onChanged?.();
    } catch (caught) {
      setActionError(errorMessage(caught));
    }
  };

  const startCreate = (kind: Creating["kind"], folder: string) => {
    setMenu(null);
    setCreating({ kind, folder });
    setNewPath(folder ? `${folder}/` : "");
    setFormError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!creating) return;
    const path = newPath.trim().replace(/^\/+/, "").replace(/\/+$/, "");
    if (!path) return;
    try {
      if (creating.kind === "file") await onCreate(path);
      else {
        if (!sessionId) throw new Error("no session");
        const made = await createFolder(sessionId, path, opts);
        setMadeFolders((old) => new Set(old).add(made));
        onChanged?.();
      }
      setNewPath("");
      setCreating(null);
      setFormError(null);
    } catch (caught) {
      setFormError((caught as Error).message);
    }
  };

  const startRename = (path: string) => {
    setMenu(null);
    setRenaming(path);
    renamingRef.current = path;
    setRenameTo(path.split("/").pop() ?? path);
  };

  const commitRename = (from: string) => {
    // Enter commits, then the input's blur would again: only the first counts.
    if (renamingRef.current !== from) return;
    renamingRef.current = null;
    const name = renameTo.trim();
    setRenaming(null);
    if (!name || !sessionId || name === from.split("/").pop()) return;
    if (name.includes("/"))
      return setActionError(`A new name may not contain "/": ${JSON.stringify(name)} (drag the item to move it)`);
    void act(() =>
      movePath(sessionId, from, join(parentOf(from), name), opts).then(() =>
        forgetFolder(from, join(parentOf(from), name)),
      ),
    );
  };

  const forgetFolder = (path: string, movedTo?: string) => setMadeFolders((old) => foldersAfter(old, path, movedTo));

  const remove = (target: Target) => {
    setMenu(null);
    if (!sessionId) return;
    const inside = target.isFolder ? files.filter((file) => file.startsWith(`${target.path}/`)).length : 0;
    const what = target.isFolder
      ? `the folder ${target.path} and the ${inside} file${inside === 1 ? "" : "s"} in it`
      : target.path;
    if (!window.confirm(`Delete ${what}? This cannot be undone.`)) return;
    void act(() => removePath(sessionId, target.path, opts).then(() => forgetFolder(target.path)));
  };

  const move = (from: string, folder: string) => {
    if (!sessionId) return;
    const to = join(folder, from.split("/").pop() ?? from);
    if (to === from || parentOf(from) === folder) return;
    void act(() => movePath(sessionId, from, to, opts).then(() => forgetFolder(from, to)));
  };

  const upload = async (items: { file: File; path: string }[]) => {
    if (!sessionId || items.length === 0) return;
    setActionError(null);
    setUploads(items.map(({ file, path }) => ({ name: path, bytes: file.size, state: "waiting" })));
    const failed: string[] = [];
    for (const [index, { file, path }] of items.entries()) {
      setUploads((old) => old.map((u, i) => (i === index ? { ...u, state: "sending" } : u)));
      try {
        await uploadFile(sessionId, path, file, opts);
        setUploads((old) => old.map((u, i) => (i === index ? { ...u, state: "done" } : u)));
      } catch (caught) {
        failed.push(errorMessage(caught));
        setUploads((old) =>
          old.map((u, i) => (i === index ? { ...u, state: "failed", error: errorMessage(caught) } : u)),
        );
      }
    }
    onChanged?.();
    if (failed.length) setActionError(failed.join("; "));
    else setTimeout(() => setUploads((old) => (old.every((u) => u.state === "done") ? [] : old)), 3000);
  };

  const onDragOver = (event: DragEvent, folder: string) => {
    const types = event.dataTransfer.types;
    if (!types.includes(DRAG_TYPE) && !types.includes("Files")) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = types.includes(DRAG_TYPE) ? "move" : "copy";
    if (dropOn !== folder) setDropOn(folder);
  };

  const onDrop = (event: DragEvent, folder: string) => {
    event.preventDefault();
    event.stopPropagation();
    setDropOn(null);
    const from = event.dataTransfer.getData(DRAG_TYPE);
    if (from) return move(from, folder);
    void droppedFiles(event.dataTransfer, folder).then(upload, (caught: unknown) =>
      setActionError(errorMessage(caught)),
    );
  };

  const onKey = (event: KeyboardEvent) => {
    if (renaming || creating) return;
    const item = (event.target as HTMLElement).closest<HTMLElement>("[data-path]");
    if (!item) return;
    const target: Target = { path: item.dataset.path!, isFolder: item.dataset.kind === "folder" };
    if (event.key === "F2") {
      event.preventDefault();
      startRename(target.path);
    } else if (event.key === "Delete" || (event.key === "Backspace" && event.metaKey)) {
      event.preventDefault();
      remove(target);
    } else if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) {
      event.preventDefault();
      const box = item.getBoundingClientRect();
      setMenu({ x: box.left + 20, y: box.bottom, target });
    }
  };

  const openMenu = (event: MouseEvent, target: Target | null) => {
    event.preventDefault();
    event.stopPropagation();
    setMenu({ x: event.clientX, y: event.clientY, target });
  };

  // A right-click or a folder's click on the server-rendered tree before React hydrated it reached no handler of
  // React's: the page's early script (lib/preloads.tsx) kept them on the tree's body, and they take effect here as
  // they would have. The toolbar's buttons are disabled in the server HTML until React has them: a click before
  // hydration would be lost (a click on a file is kept by the editor instead).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    const body = bodyRef.current;
    if (!body) return;
    body.setAttribute("data-tree-hydrated", "react");
    const menuAsked = takeAttribute(body, "data-asked-menu");
    const togglesAsked = takeAttribute(body, "data-asked-toggles");
    try {
      const toggles: unknown = togglesAsked ? JSON.parse(togglesAsked) : [];
      const paths = Array.isArray(toggles) ? toggles.filter((path): path is string => typeof path === "string") : [];
      if (paths.length > 0) setCollapsed((old) => paths.reduce(toggled, old));
      if (!menuAsked) return;
      const { x, y, path, folder } = JSON.parse(menuAsked) as { x: number; y: number; path: string; folder: boolean };
      if (typeof x === "number" && typeof y === "number" && typeof path === "string") setMenu({ x, y, target: { path, isFolder: folder === true } });
    } catch {
      // Not ours to mind: the next click or right-click does it again.
    }
  }, []);

  useEffect(() => {
    if (!menu) return;
    const close = () => setMenu(null);
    const onEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key === "Escape") close();
    };
    window.addEventListener("click", close);
    window.addEventListener("keydown", onEscape);
    return () => {
      window.removeEventListener("click", close);
      window.removeEventListener("keydown", onEscape);
    };
  }, [menu]);

  const renameBox = (path: string, depth: number, indent: number) => (
    <input
      key={path}
      autoFocus
      className={styles.renameInput}
      style={{ marginLeft: indent + depth * 12 }}
      value={renameTo}
      onChange={(event) => setRenameTo(event.target.value)}
      onFocus={(event) => {
        const dot = event.target.value.lastIndexOf(".");
        event.target.setSelectionRange(0, dot > 0 ? dot : event.target.value.length);
      }}
      onKeyDown={(event) => {
        if (event.key === "Enter") commitRename(path);
        else if (event.key === "Escape") {
          renamingRef.current = null;
          setRenaming(null);
        }
        event.stopPropagation();
      }}
      onBlur={() => commitRename(path)}
      aria-label={`New name for ${path}`}
      data-testid="rename-input"
    />
  );

  const render = (node: TreeNode, depth: number) =>
    sortedChildren(node).map((child) => {
      if (child.children) {
        const isCollapsed = collapsed.has(child.path);
        return (
          <div
            key={child.path}
            onDragOver={(event) => onDragOver(event, child.path)}
            onDrop={(event) => onDrop(event, child.path)}
            className={dropOn === child.path ? styles.dropTarget : undefined}
          >
            {renaming === child.path ? (
              renameBox(child.path, depth, 10)
            ) : (
              <button
                className="tree-item folder"
                style={{ paddingLeft: 10 + depth * 12 }}
                draggable
                onDragStart={(event) => event.dataTransfer.setData(DRAG_TYPE, child.path)}
                onContextMenu={(event) => openMenu(event, { path: child.path, isFolder: true })}
                onClick={() => setCollapsed((old) => toggled(old, child.path))}
                data-testid="tree-folder"
                data-kind="folder"
                data-path={child.path}
                title={child.path}
              >
                <span className="caret">{isCollapsed ? "▸" : "▾"}</span> {child.name}
              </button>
            )}
            {isCollapsed ? null : render(child, depth + 1)}
          </div>
        );
      }
      if (renaming === child.path) return renameBox(child.path, depth, 22);
      return (
        <button
          key={child.path}
          className={`tree-item file${child.path === activePath ? " active" : ""}`}
          style={{ paddingLeft: 22 + depth * 12 }}
          onClick={() => onOpen(child.path)}
          draggable
          onDragStart={(event) => event.dataTransfer.setData(DRAG_TYPE, child.path)}
          onContextMenu={(event) => openMenu(event, { path: child.path, isFolder: false })}
          data-testid="tree-file"
          data-kind="file"
          data-path={child.path}
          title={child.path}
        >
          {child.name}
          {dirty.has(child.path) ? <span className="dot" aria-label="unsaved" /> : null}
        </button>
      );
    });

  const target = menu?.target ?? null;
  return (
    <div className="file-tree" data-testid="file-tree">
      <div className="panel-title">
        Files
        <span>
          <button
            className="btn ghost tiny-btn"
            title="New folder"
            disabled={!hydrated}
            onClick={() => startCreate("folder", "")}
            data-testid="new-folder"
          >
            ⊞
          </button>
          <button
            className="btn ghost tiny-btn"
            title="New file"
            disabled={!hydrated}
            onClick={() => (creating ? setCreating(null) : startCreate("file", ""))}
            data-testid="new-file"
          >
            +
          </button>
        </span>
      </div>
      {creating ? (
        <form onSubmit={(event) => void submit(event)} className="new-file-form">
          <input
            autoFocus
            value={newPath}
            placeholder={creating.kind === "file" ? "path/to/file.py" : "path/to/folder"}
            aria-label={creating.kind === "file" ? "New file path" : "New folder path"}
            onChange={(event) => setNewPath(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setCreating(null);
            }}
            data-testid={creating.kind === "file" ? "new-file-input" : "new-folder-input"}
          />
          {formError ? <div className="tiny bad-text">{formError}</div> : null}
        </form>
      ) : null}
      <div
        ref={bodyRef}
        data-tree-body=""
        className={`tree-body${dropOn === "" ? ` ${styles.dropTarget}` : ""}`}
        onKeyDown={onKey}
        onContextMenu={(event) => openMenu(event, null)}
        onDragOver={(event) => onDragOver(event, "")}
        onDragLeave={(event) => {
          if (!bodyRef.current?.contains(event.relatedTarget as globalThis.Node | null)) setDropOn(null);
        }}
        onDrop={(event) => onDrop(event, "")}
        data-testid="tree-body"
      >
        {error ? (
          <div className="state error tiny">⚠ {error}</div>
        ) : loading && files.length === 0 ? (
          <div className="state loading tiny">Loading files…</div>
        ) : files.length === 0 && madeFolders.size === 0 ? (
          <div className="empty tiny" data-testid="files-empty">
            <strong>Empty workspace</strong>
            <span className="muted">Press + to create a file, or drop files here.</span>
          </div>
        ) : (
          render(tree, 0)
        )}
      </div>
      {actionError ? (
        <div className="tiny bad-text pad" role="alert" data-testid="tree-error">
          {actionError}
        </div>
      ) : null}
      {uploads.length ? (
        <div className={styles.uploads} data-testid="uploads">
          {uploads.map((u) => (
            <div key={u.name} data-testid="upload-row" data-state={u.state}>
              <div className="ellipsis">
                {u.state === "done" ? "✓" : u.state === "failed" ? "✗" : "↑"} {u.name}{" "}
                <span className="muted">({formatBytes(u.bytes)})</span>
              </div>
              {u.state === "sending" || u.state === "waiting" ? (
                <progress value={u.state === "sending" ? undefined : 0} max={1} />
              ) : null}
            </div>
          ))}
          <div className="muted">
            {uploads.filter((u) => u.state === "done").length}/{uploads.length} uploaded
          </div>
        </div>
      ) : null}
      {menu ? (
        <div
          className={styles.menu}
          style={{ left: menu.x, top: menu.y }}
          role="menu"
          data-testid="tree-menu"
          onClick={(event) => event.stopPropagation()}
        >
          <button role="menuitem" onClick={() => startCreate("file", folderOf(target))}>
            New file…
          </button>
          <button role="menuitem" onClick={() => startCreate("folder", folderOf(target))}>
            New folder…
          </button>
          {target ? (
            <>
              <hr />
              {!target.isFolder ? (
                <button
                  role="menuitem"
                  onClick={() => {
                    setMenu(null);
                    if (sessionId)
                      void downloadFile(sessionId, target.path).catch((caught: unknown) =>
                        setActionError(errorMessage(caught)),
                      );
                  }}
                >
                  Download
                </button>
              ) : (
                (["tar.gz", "zip"] as const).map((format) => (
                  <button
                    key={format}
                    role="menuitem"
                    onClick={() => {
                      setMenu(null);
                      try {
                        if (sessionId) downloadFolder(sessionId, target.path, format);
                      } catch (caught) {
                        setActionError(errorMessage(caught));
                      }
                    }}
                  >
                    Download as .{format}
                  </button>
                ))
              )}
              <button role="menuitem" onClick={() => startRename(target.path)}>
                Rename… <kbd>F2</kbd>
              </button>
              <button role="menuitem" onClick={() => remove(target)}>
                Delete <kbd>Del</kbd>
              </button>
              <button
                role="menuitem"
                onClick={() => {
                  setMenu(null);
                  void navigator.clipboard?.writeText(target.path).catch(() => undefined);
                }}
              >
                Copy path
              </button>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The files of a desktop drop, folders walked (webkitGetAsEntry), each with its path under `folder`. */
async function droppedFiles(transfer: DataTransfer, folder: string): Promise<{ file: File; path: string }[]> {
  const entries = [...transfer.items]
    .map((item) => item.webkitGetAsEntry?.())
    .filter((entry): entry is FileSystemEntry => !!entry);
  if (entries.length === 0) return [...transfer.files].map((file) => ({ file, path: join(folder, file.name) }));
  const out: { file: File; path: string }[] = [];
  const walk = async (entry: FileSystemEntry, base: string): Promise<void> => {
    const path = join(base, entry.name);
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, path });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries answers in batches until it returns none.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, path);
      }
    }
  };
  for (const entry of entries) await walk(entry, folder);
  return out;
}

/** The collapsed folders with `path` folded if it was open, unfolded if it was folded. */
function toggled(collapsed: ReadonlySet<string>, path: string): Set<string> {
  const next = new Set(collapsed);
  if (next.has(path)) next.delete(path);
  else next.add(path);
  return next;
}

/** An attribute's value, removed from the element (null when it had none). */
function takeAttribute(element: Element, name: string): string | null {
  const value = element.getAttribute(name);
  element.removeAttribute(name);
  return value;
}
