"use client";
import { Link } from "@/components/ui/link";
import { listSkills } from "@/lib/api";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState, Spinner } from "@/components/ui/states";

export function SkillsList() {
  const skills = useAsync(listSkills, []);
  return (
    <>
      <div className="page-head">
        <h1>Skills</h1>
        <div className="spacer" />
        <Link className="btn primary" href="/skills/new" data-testid="new-skill">
          New skill
        </Link>
      </div>
      {skills.error && !skills.data ? (
        <ErrorState message={skills.error} onRetry={() => void skills.reload()} />
      ) : !skills.data ? (
        <Spinner label="Loading skills…" />
      ) : skills.data.length === 0 ? (
        <EmptyState title="No skills yet" testId="skills-empty">
          A skill is a named markdown playbook with the tools it may use. Agents find it through the gateway.
        </EmptyState>
      ) : (
        <div className="card flush">
          <table className="table" data-testid="skills-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Allowed tools</th>
              </tr>
            </thead>
            <tbody>
              {skills.data.map((skill) => (
                <tr key={skill.name} data-testid="skill-row">
                  <td>
                    <Link href={`/skills/${encodeURIComponent(skill.name)}`} className="mono">
                      {skill.name}
                    </Link>
                  </td>
                  <td>{skill.description}</td>
                  <td>
                    <div className="chips">
                      {(skill.allowedTools ?? []).length === 0 ? <span className="muted">any</span> : skill.allowedTools?.map((tool) => <span key={tool} className="chip">{tool}</span>)}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
