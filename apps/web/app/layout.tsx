import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = { title: "Berth", description: "Browser IDE with a sandboxed remote runner" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="topbar">
          <a className="brand" href="/">⚓ Berth</a>
        </header>
        {children}
      </body>
    </html>
  );
}
