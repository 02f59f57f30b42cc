import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { SkillEditor } from "@/components/skills/skill-editor";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New skill" };

export default async function NewSkillPage() {
  await requireUser("/skills/new");
  return (
    <main className="page">
      <SkillEditor name={null} />
    </main>
  );
}
