"use client";
import { IdeEditor } from "@/components/editor/ide-editor";
import { EmptyState, ErrorState, Spinner } from "@/components/ui/states";
import { EDITABLE_MAX_CHARS } from "@/lib/ide/editor-tabs";
import { languageFor } from "@/lib/languages";
import { TabStrip } from "./tab-strip";
import { SaveConflictBar } from "./save-conflict";
import type { EditorTabsApi } from "./use-editor-tabs";
import type { SaveApi } from "./use-save";

/** What the editor holds while no text file is active (it stays hidden then); monaco/entry.ts creates it with the editor. */
const NO_FILE_MODEL = "inmemory://berth/no-file";

type EditorPaneProps = {
  editor: EditorTabsApi;
  save: SaveApi;
  onEditorMounted: () => void;
};

/** The editor area: the open files' tabs, the conflict bar of a refused save, and the editor or what stands in for it. */
export function EditorPane({ editor, save, onEditorMounted }: EditorPaneProps) {
  const { tabs, activePath, activeTab, textTab, dirty, modelPath } = editor;
  const conflict = save.conflict;
  return (
    <section className="editor-area">
      <TabStrip
        className="tabs"
        testId="editor-tabs"
        tabTestId="editor-tab"
        activeId={activePath}
        onSelect={editor.activate}
        onClose={editor.closeTab}
        middleClickCloses
        tabs={tabs.map((tab) => ({
          id: tab.path,
          className: "tab",
          title: tab.path,
          data: { "data-path": tab.path, "data-dirty": dirty.has(tab.path) ? "true" : "false" },
          close: { className: "tab-close", label: `Close ${tab.path}` },
          label: (
            <>
              <span>{tab.path.split("/").pop()}</span>
              {dirty.has(tab.path) ? <span className="dot" data-testid="tab-dirty" aria-label="unsaved changes" /> : null}
            </>
          ),
        }))}
      />
      {conflict && textTab && conflict.path === textTab.path ? (
        <SaveConflictBar
          conflict={conflict}
          monaco={editor.monaco}
          language={languageFor(conflict.path)}
          busy={save.saving}
          onOverwrite={save.overwrite}
          onReload={save.reload}
          onRestoreMine={save.restoreMine}
          onClose={save.dismiss}
        />
      ) : null}
      <div className="editor-body">
        {textTab?.truncated ? (
          <div className="banner warn" data-testid="file-too-large">
            File too large to edit here: showing the first {EDITABLE_MAX_CHARS.toLocaleString()} characters, read-only.
          </div>
        ) : null}
        {/* One editor for the page, in the server HTML from the start (components/editor/ide-editor.tsx) and kept
            while other tabs show: opening a file is then a model switch, not an editor construction. Hidden (not
            removed) while no text file is active. */}
        <div className={`monaco-host${textTab ? "" : " parked"}`} data-testid="editor" aria-hidden={!textTab}>
          <IdeEditor
            path={textTab ? modelPath(textTab.path) : NO_FILE_MODEL}
            value={textTab ? textTab.saved : ""}
            language={textTab ? languageFor(textTab.path) : "plaintext"}
            readOnly={!textTab || !!textTab.truncated}
            onChange={(value) => {
              if (textTab) editor.setDraft(textTab.path, value);
            }}
            onMount={(mounted, monaco, asked) => {
              editor.onEditorMount(mounted, monaco);
              if (asked) editor.openFile(asked);
              onEditorMounted();
            }}
          />
        </div>
        {textTab ? null : (
          <div className="editor-overlay">
            {!activeTab ? (
              <EmptyState title="No file open" testId="editor-empty">
                Pick a file on the left or create one with +. <kbd>Ctrl/Cmd+S</kbd> saves, <kbd>Ctrl/Cmd+Enter</kbd> runs, <kbd>Ctrl+`</kbd> focuses the terminal.
              </EmptyState>
            ) : activeTab.kind === "loading" ? (
              <Spinner label={`Opening ${activeTab.path}…`} />
            ) : activeTab.kind === "binary" ? (
              <EmptyState title="Binary file" testId="file-binary">
                {activeTab.path} is not UTF-8 text, so it is not shown in the editor.
              </EmptyState>
            ) : activeTab.kind === "too_large" ? (
              <EmptyState title="File too large" testId="file-too-large">
                {activeTab.message}
              </EmptyState>
            ) : (
              <ErrorState message={activeTab.message ?? "Could not open the file"} onRetry={() => void editor.readInto(activeTab.path)} />
            )}
          </div>
        )}
      </div>
    </section>
  );
}
