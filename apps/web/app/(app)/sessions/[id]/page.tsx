import type { Metadata } from "next";
import { cookies } from "next/headers";
import { requireUser } from "@/lib/auth";
import { fetchIdeFirstView } from "@/lib/runner";
import { SESSION_COOKIE } from "@/lib/session-cookie";
import { EditorPreload } from "@/lib/preloads";
import { Ide } from "@/components/ide/ide";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "IDE" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/sessions/${id}`);
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? "";
  const firstView = await fetchIdeFirstView(token, id);
  return (
    <>
      <EditorPreload />
      <Ide sessionId={id} firstView={firstView} />
    </>
  );
}
