import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { EditorPreload } from "@/lib/preloads";
import { SkillEditor } from "@/components/skills/skill-editor";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New skill" };

export default async function NewSkillPage() {
  await requireUser("/skills/new");
  return (
    <main className="page">
      <EditorPreload />
      <SkillEditor name={null} />
    </main>
  );
}
