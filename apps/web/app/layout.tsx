import type { Metadata } from "next";
import type { ReactNode } from "react";
import { fontPreloads } from "@/lib/preloads";
import "./globals.css";

export const metadata: Metadata = { title: { default: "Berth", template: "%s · Berth" }, description: "Browser IDE with a sandboxed remote runner" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        {fontPreloads().map((href) => (
          <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />
        ))}
      </head>
      <body>{children}</body>
    </html>
  );
}
