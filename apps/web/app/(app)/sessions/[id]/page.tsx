import type { Metadata } from "next";
import { cookies } from "next/headers";
import { browserSession, requireUser } from "@/lib/auth";
import { fetchIdeFirstView } from "@/lib/runner";
import { IDE_LAYOUT_COOKIE, parseIdeLayout } from "@/lib/ide/ide-layout";
import { EarlyEditorScript, EditorPreload } from "@/lib/preloads";
import { Ide } from "@/components/ide/ide";
import { SmallScreenNotice } from "@/components/ide/small-screen-notice";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "IDE" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const me = await requireUser(`/sessions/${id}`);
  const cookieStore = await cookies();
  const firstView = await fetchIdeFirstView((await browserSession()) ?? "", id);
  return (
    <>
      <EditorPreload />
      <SmallScreenNotice />
      <Ide sessionId={id} me={{ userId: me.userId, name: me.name, role: me.role }} firstView={firstView} layout={parseIdeLayout(cookieStore.get(IDE_LAYOUT_COOKIE)?.value)} />
      <EarlyEditorScript />
    </>
  );
}
