"use client";
import type { ReactNode } from "react";

export type StripTab = {
  id: string;
  /** The tab's classes; `active` is added while it is selected. */
  className: string;
  /** data-* attributes the tests and styles find the tab by. */
  data?: Record<`data-${string}`, string>;
  title?: string;
  close: { className: string; label: string; title?: string; testId?: string };
  label: ReactNode;
};

type TabStripProps = {
  className: string;
  testId: string;
  tabTestId: string;
  tabs: readonly StripTab[];
  activeId: string | null;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
  /** A middle click closes a tab too (as in a desktop editor). */
  middleClickCloses?: boolean;
  /** After the tabs (a + button, an error). */
  children?: ReactNode;
};

/** A row of tabs (the editor's files, the terminals): a click selects one, its × closes it. */
export function TabStrip({ className, testId, tabTestId, tabs, activeId, onSelect, onClose, middleClickCloses, children }: TabStripProps) {
  return (
    <div className={className} role="tablist" data-testid={testId}>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tab"
          aria-selected={tab.id === activeId}
          className={`${tab.className}${tab.id === activeId ? " active" : ""}`}
          data-testid={tabTestId}
          {...tab.data}
          title={tab.title}
          onClick={() => onSelect(tab.id)}
          onAuxClick={(event) => {
            if (middleClickCloses && event.button === 1) onClose(tab.id);
          }}
        >
          {tab.label}
          <button
            className={tab.close.className}
            title={tab.close.title}
            aria-label={tab.close.label}
            data-testid={tab.close.testId}
            onClick={(event) => {
              event.stopPropagation();
              onClose(tab.id);
            }}
          >
            ×
          </button>
        </div>
      ))}
      {children}
    </div>
  );
}
