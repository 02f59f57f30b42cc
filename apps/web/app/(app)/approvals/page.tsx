import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { ApprovalsDashboard } from "@/components/approvals/approvals-dashboard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const me = await requireUser("/approvals");
  return (
    <main className="page">
      <ApprovalsDashboard role={me.role} />
    </main>
  );
}
