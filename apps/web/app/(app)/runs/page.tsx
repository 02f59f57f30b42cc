import type { Metadata } from "next";
import { Suspense } from "react";
import { requireUser } from "@/lib/auth";
import { RunsDashboard } from "@/components/runs/runs-dashboard";
import { Spinner } from "@/components/ui/states";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage() {
  await requireUser("/runs");
  return (
    <main className="page">
      <Suspense fallback={<Spinner label="Loading runs…" />}>
        <RunsDashboard />
      </Suspense>
    </main>
  );
}
