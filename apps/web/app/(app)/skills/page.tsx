import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { SkillsList } from "@/components/skills/skills-list";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Skills" };

export default async function SkillsPage() {
  await requireUser("/skills");
  return (
    <main className="page">
      <SkillsList />
    </main>
  );
}
