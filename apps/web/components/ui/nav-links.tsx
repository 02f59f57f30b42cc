"use client";
import { Link } from "@/components/ui/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Sessions", testId: "nav-sessions" },
  { href: "/runs", label: "Runs", testId: "nav-runs" },
  { href: "/approvals", label: "Approvals", testId: "nav-approvals" },
  { href: "/skills", label: "Skills", testId: "nav-skills" },
  { href: "/settings", label: "Settings", testId: "nav-settings" },
];

export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav className="nav">
      {LINKS.map((link) => {
        const active = link.href === "/" ? pathname === "/" || pathname.startsWith("/sessions") : pathname.startsWith(link.href);
        return (
          <Link key={link.href} href={link.href} className={active ? "active" : undefined} data-testid={link.testId}>
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
