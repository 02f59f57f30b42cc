import { Link } from "@/components/ui/link";

/** The IDE needs this much width; narrower screens get this notice instead (globals.css hides one or the other). */
export const IDE_MIN_WIDTH_PX = 768;

/**
 * Shown instead of the IDE on a phone-sized screen: the editor, tree and terminal do not fit, but the pages an
 * operator needs away from a desk (runs, approvals) do.
 */
export function SmallScreenNotice() {
  return (
    <div className="ide-small-screen" data-testid="ide-small-screen">
      <div className="card">
        <h1>The IDE needs a larger screen</h1>
        <p>The IDE needs a larger screen (at least {IDE_MIN_WIDTH_PX} px wide). On this one you can follow runs and decide approvals:</p>
        <div className="row wrap">
          <Link className="btn primary" href="/approvals" data-testid="small-screen-approvals">
            Approvals
          </Link>
          <Link className="btn" href="/runs" data-testid="small-screen-runs">
            Runs
          </Link>
          <Link className="btn ghost" href="/">
            Sessions
          </Link>
        </div>
      </div>
    </div>
  );
}
