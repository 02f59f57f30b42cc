import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { RunDetailView } from "@/components/runs/run-detail";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/runs/${id}`);
  return (
    <main className="page">
      <RunDetailView runId={id} />
    </main>
  );
}
