import type { ReactNode } from "react";
import { AppHeader } from "@/components/ui/app-header";

export default function AppLayout({ children }: { children: ReactNode }) {
  return (
    <div className="app-shell">
      <AppHeader />
      {children}
    </div>
  );
}
