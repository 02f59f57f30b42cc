import type { Metadata } from "next";
import { preload, preloadModule } from "react-dom";
import { requireUser } from "@/lib/auth";
import { monacoPreloads } from "@/lib/monaco-assets";
import { Ide } from "@/components/ide/ide";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "IDE" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/sessions/${id}`);
  // The editor bundle is most of what this page downloads: fetch it along with the page's own scripts.
  const editor = monacoPreloads();
  for (const href of editor.scripts) preloadModule(href);
  for (const href of editor.styles) preload(href, { as: "style" });
  return <Ide sessionId={id} />;
}
