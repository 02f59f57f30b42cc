"use client";
import { Suspense, useCallback, useEffect, useRef, useState } from "react";
import { GLOB_MAX_RESULTS } from "@berth/protocol";
import { callTool } from "@/lib/api";
import { getSocket, type FileChangedEvent } from "@/lib/socket";
import { loadMonaco } from "@/components/editor/load-monaco";
import { shortcutLabel } from "@/lib/ide/keymap";
import { FileTree, type FileTreeProps } from "./file-tree";
import { QuickOpen, type PaletteCommand } from "./quick-open";
import { SearchPanel, type SearchPanelHandle } from "./search-panel";
import { useShortcuts } from "./use-shortcuts";
import styles from "./files.module.css";

type Palette = null | "" | ">";

/**
 * The IDE's left side: the file tree and search across files as two tabs, and quick open / the command
 * palette over them. Owns their shortcuts: Ctrl/Cmd+P quick open, Ctrl/Cmd+Shift+F search, F1 or
 * Ctrl/Cmd+Shift+P commands. Quick open ranks its own listing of the whole workspace (up to glob's
 * limit, not the tree's), read when first opened and again after `file:changed`.
 */
function FilesSidebarContent({ tree, commands }: { tree: FileTreeProps & { sessionId: string }; commands: readonly PaletteCommand[] }) {
  const { sessionId, files, onOpen } = tree;
  const [view, setView] = useState<"files" | "search">("files");
  const [palette, setPalette] = useState<Palette>(null);
  const [allFiles, setAllFiles] = useState<string[] | null>(null);
  const stale = useRef(true);
  const searchRef = useRef<SearchPanelHandle>(null);

  const listAll = useCallback(async () => {
    stale.current = false;
    const result = await callTool(sessionId, "glob", { pattern: "**/*", maxResults: GLOB_MAX_RESULTS });
    if (result.ok) setAllFiles((result.details as { files?: string[] } | undefined)?.files ?? []);
  }, [sessionId]);

  // A change marks the listing stale; it is read again now if the palette is open, else when next opened.
  useEffect(() => {
    const socket = getSocket();
    const onFile = (event: FileChangedEvent) => {
      if (event.sessionId !== sessionId) return;
      stale.current = true;
    };
    socket.on("file:changed", onFile);
    return () => {
      socket.off("file:changed", onFile);
    };
  }, [sessionId]);

  const openPalette = useCallback(
    (mode: "" | ">") => {
      setPalette(mode);
      if (mode === "" && stale.current) void listAll().catch(() => undefined);
    },
    [listAll],
  );

  const showSearch = useCallback(() => {
    setView("search");
    requestAnimationFrame(() => searchRef.current?.focus());
  }, []);

  const openAt = useCallback(
    (path: string, line: number) => {
      onOpen(path);
      void revealLine(sessionId, path, line);
    },
    [sessionId, onOpen],
  );

  useShortcuts({ "quick-open": () => openPalette(""), commands: () => openPalette(">"), search: showSearch });

  const allCommands: PaletteCommand[] = [
    ...commands,
    { id: "quick-open", title: "Go to file…", keys: shortcutLabel("quick-open"), run: () => openPalette("") },
    { id: "search", title: "Search in files", keys: shortcutLabel("search"), run: showSearch },
    { id: "explorer", title: "Show files", run: () => setView("files") },
  ];

  return (
    <div className={styles.sidebar} data-testid="sidebar">
      <div className={styles.sideTabs} role="tablist">
        <button
          role="tab"
          aria-selected={view === "files"}
          onClick={() => setView("files")}
          data-testid="sidebar-files"
        >
          Files
        </button>
        <button
          role="tab"
          aria-selected={view === "search"}
          onClick={showSearch}
          data-testid="sidebar-search"
          title="Search in files (Ctrl/Cmd+Shift+F)"
        >
          Search
        </button>
      </div>
      <div className={view === "files" ? styles.sidePane : "hidden"}>
        <FileTree {...tree} />
      </div>
      <div className={view === "search" ? styles.sidePane : "hidden"}>
        <SearchPanel ref={searchRef} sessionId={sessionId} onOpenAt={openAt} />
      </div>
      {palette !== null ? (
        <QuickOpen
          files={allFiles ?? files}
          commands={allCommands}
          initial={palette}
          onOpen={onOpen}
          onClose={() => setPalette(null)}
        />
      ) : null}
    </div>
  );
}

/**
 * Puts the cursor on `line` of `path` once the editor shows that file with its text (opening is a
 * read_file away), and scrolls it to the middle. Gives up after 5 s.
 */
async function revealLine(sessionId: string, path: string, line: number) {
  const monaco = await loadMonaco();
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const editor = monaco.editor.getEditors().find((e) => e.getModel()?.uri.path === `/${sessionId}/${path}`);
    const model = editor?.getModel();
    if (editor && model && model.getLineCount() >= line) {
      editor.setPosition({ lineNumber: line, column: 1 });
      editor.revealLineInCenter(line);
      editor.focus();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Hydrated as a Suspense boundary of its own, after the IDE's shell, so the editor is adopted sooner (see BottomPanel). */
export function FilesSidebar(props: { tree: FileTreeProps & { sessionId: string }; commands: readonly PaletteCommand[] }) {
  return (
    <Suspense>
      <FilesSidebarContent {...props} />
    </Suspense>
  );
}
