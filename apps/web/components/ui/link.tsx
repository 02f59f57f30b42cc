"use client";
import NextLink from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

/**
 * next/link that prefetches on intent (pointer over it, or keyboard focus) instead of on sight. Viewport
 * prefetching renders every visible page on the server while the current one loads; on a small machine
 * that shares its cores with the runner, it made the IDE slower to become usable.
 */
export function Link({ href, onMouseEnter, onFocus, ...props }: ComponentProps<typeof NextLink>) {
  const router = useRouter();
  const prefetch = () => {
    if (typeof href === "string") router.prefetch(href);
  };
  return (
    <NextLink
      {...props}
      href={href}
      prefetch={false}
      onMouseEnter={(event) => {
        prefetch();
        onMouseEnter?.(event);
      }}
      onFocus={(event) => {
        prefetch();
        onFocus?.(event);
      }}
    />
  );
}
