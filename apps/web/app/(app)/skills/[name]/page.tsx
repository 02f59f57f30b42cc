import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { EditorPreload } from "@/lib/preloads";
import { SkillEditor } from "@/components/skills/skill-editor";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Skill" };

export default async function SkillPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  const decoded = decodeURIComponent(name);
  await requireUser(`/skills/${name}`);
  return (
    <main className="page">
      <EditorPreload />
      <SkillEditor name={decoded} />
    </main>
  );
}
