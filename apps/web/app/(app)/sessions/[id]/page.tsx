import type { Metadata } from "next";
import { cookies } from "next/headers";
import { requireUser } from "@/lib/auth";
import { fetchIdeFirstView } from "@/lib/runner";
import { SESSION_COOKIE } from "@/lib/session-cookie";
import { IDE_LAYOUT_COOKIE, parseIdeLayout } from "@/lib/ide-layout";
import { EditorPreload } from "@/lib/preloads";
import { Ide } from "@/components/ide/ide";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "IDE" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/sessions/${id}`);
  const cookieStore = await cookies();
  const token = cookieStore.get(SESSION_COOKIE)?.value ?? "";
  const firstView = await fetchIdeFirstView(token, id);
  return (
    <>
      <EditorPreload />
      <Ide sessionId={id} firstView={firstView} layout={parseIdeLayout(cookieStore.get(IDE_LAYOUT_COOKIE)?.value)} />
    </>
  );
}
