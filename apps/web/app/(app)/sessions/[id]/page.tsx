import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { Ide } from "@/components/ide/ide";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "IDE" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/sessions/${id}`);
  return <Ide sessionId={id} />;
}
