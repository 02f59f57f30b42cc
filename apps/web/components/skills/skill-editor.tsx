"use client";
import { Link } from "@/components/ui/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { BUILTIN_TOOLS, createSkill, deleteSkill, errorMessage, getSkill, updateSkill, type Skill } from "@/lib/api";
import { CodeEditor } from "@/components/editor/code-editor";
import { ErrorState, Spinner } from "@/components/ui/states";

const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TEMPLATE = "# Skill\n\nDescribe when to use this skill and the steps to follow.\n";

export function SkillEditor({ name }: { name: string | null }) {
  const router = useRouter();
  const isNew = name === null;
  const [skill, setSkill] = useState<Skill | null>(isNew ? { name: "", description: "", body: TEMPLATE, allowedTools: [] } : null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string>("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [customTool, setCustomTool] = useState("");

  useEffect(() => {
    if (isNew) return;
    getSkill(name)
      .then((loaded) => {
        const normal: Skill = { name: loaded.name, description: loaded.description, body: loaded.body, allowedTools: loaded.allowedTools ?? [] };
        setSkill(normal);
        setSaved(JSON.stringify(normal));
      })
      .catch((caught: unknown) => setLoadError(errorMessage(caught)));
  }, [isNew, name]);

  const dirty = skill ? JSON.stringify(skill) !== saved : false;

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!skill) return;
    if (isNew && skill.name === "new") {
      setError('name: "new" is reserved (it is the address of this form)');
      return;
    }
    if (isNew && !NAME_PATTERN.test(skill.name)) {
      setError(`name: must be 1-64 lowercase letters, digits or dashes, starting with a letter or digit (got "${skill.name}")`);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      if (isNew) {
        await createSkill(skill);
        router.replace(`/skills/${encodeURIComponent(skill.name)}`);
      } else {
        await updateSkill(skill.name, skill);
        setSaved(JSON.stringify(skill));
        setNotice("Saved");
        setTimeout(() => setNotice(null), 2000);
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
        event.preventDefault();
        event.stopPropagation();
        void save();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  const remove = async () => {
    if (!skill || !window.confirm(`Delete skill "${skill.name}"?`)) return;
    setBusy(true);
    try {
      await deleteSkill(skill.name);
      router.replace("/skills");
    } catch (caught) {
      setError(errorMessage(caught));
      setBusy(false);
    }
  };

  if (loadError) return <ErrorState message={loadError} />;
  if (!skill) return <Spinner label="Loading skill…" />;
  const tools = skill.allowedTools ?? [];
  const toggle = (tool: string) => setSkill({ ...skill, allowedTools: tools.includes(tool) ? tools.filter((t) => t !== tool) : [...tools, tool] });

  return (
    <form onSubmit={(event) => void save(event)} className="stack">
      <div className="page-head">
        <Link href="/skills" className="muted">
          Skills
        </Link>
        <span className="muted">/</span>
        <h1 className="mono">{isNew ? "new skill" : skill.name}</h1>
        {dirty ? <span className="dot" aria-label="unsaved" data-testid="skill-dirty" /> : null}
        <div className="spacer" />
        {notice ? <span className="notice ok">{notice}</span> : null}
        {!isNew ? (
          <button type="button" className="btn ghost danger small" onClick={() => void remove()} disabled={busy} data-testid="delete-skill">
            Delete
          </button>
        ) : null}
        <button type="submit" className="btn primary" disabled={busy || (!dirty && !isNew)} data-testid="save-skill" title="Save (Ctrl/Cmd+S)">
          {busy ? "Saving…" : isNew ? "Create" : "Save"}
        </button>
      </div>
      {error ? <ErrorState message={error} /> : null}
      <div className="card form">
        <div className="row wrap" style={{ alignItems: "flex-end" }}>
          <label className="field">
            <span>Name</span>
            <input value={skill.name} readOnly={!isNew} onChange={(event) => setSkill({ ...skill, name: event.target.value })} placeholder="deploy-checklist" data-testid="skill-name" />
          </label>
          <label className="field grow">
            <span>Description</span>
            <input value={skill.description} onChange={(event) => setSkill({ ...skill, description: event.target.value })} placeholder="One sentence: when to use it" data-testid="skill-description" />
          </label>
        </div>
        <div className="field">
          <span>Allowed tools {tools.length === 0 ? <span className="muted">(none selected: no restriction)</span> : null}</span>
          <div className="chips" data-testid="skill-tools">
            {[...new Set([...BUILTIN_TOOLS, ...tools])].map((tool) => (
              <span key={tool} className={`chip${tools.includes(tool) ? " on" : ""}`} role="checkbox" aria-checked={tools.includes(tool)} tabIndex={0} onClick={() => toggle(tool)} onKeyDown={(event) => (event.key === " " || event.key === "Enter") && (event.preventDefault(), toggle(tool))}>
                {tools.includes(tool) ? "✓ " : ""}
                {tool}
              </span>
            ))}
            <input
              value={customTool}
              onChange={(event) => setCustomTool(event.target.value)}
              placeholder="other tool + Enter"
              style={{ minHeight: 24, padding: "0 8px", fontSize: 12 }}
              onKeyDown={(event) => {
                if (event.key === "Enter") {
                  event.preventDefault();
                  const tool = customTool.trim();
                  if (tool && !tools.includes(tool)) setSkill({ ...skill, allowedTools: [...tools, tool] });
                  setCustomTool("");
                }
              }}
            />
          </div>
        </div>
        <div className="field">
          <span>Body (markdown)</span>
          <div className="skill-body" data-testid="skill-body">
            <CodeEditor path={`skill://${isNew ? "new" : skill.name}.md`} value={skill.body} language="markdown" onChange={(body) => setSkill((old) => (old ? { ...old, body } : old))} />
          </div>
        </div>
      </div>
    </form>
  );
}
