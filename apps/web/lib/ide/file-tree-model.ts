// The file tree's nodes, built from glob's flat list of files (and the empty folders the tree made
// itself, which glob cannot list). Pure: file-tree.tsx renders it.

export type TreeNode = { name: string; path: string; children: Map<string, TreeNode> | null };

/** The root of the tree: a folder node per path segment, a file node (`children: null`) per file. */
export function buildTree(files: readonly string[], folders: Iterable<string>): TreeNode {
  const root: TreeNode = { name: "", path: "", children: new Map() };
  const add = (entry: string, isFolder: boolean) => {
    const parts = entry.split("/").filter(Boolean);
    let node = root;
    parts.forEach((part, index) => {
      const isFile = !isFolder && index === parts.length - 1;
      const path = parts.slice(0, index + 1).join("/");
      let child = node.children?.get(part);
      if (!child) {
        child = { name: part, path, children: isFile ? null : new Map() };
        node.children?.set(part, child);
      }
      node = child;
    });
  };
  for (const file of files) add(file, false);
  for (const folder of folders) add(folder, true);
  return root;
}

/** A folder's entries as the tree lists them: folders first, then by name. */
export function sortedChildren(node: TreeNode): TreeNode[] {
  return [...(node.children?.values() ?? [])].sort((a, b) => {
    if (!!a.children !== !!b.children) return a.children ? -1 : 1;
    return a.name.localeCompare(b.name);
  });
}

/**
 * The empty folders the tree keeps after `path` was removed (`movedTo` absent) or moved: the folder and
 * everything under it go, or follow it to its new place.
 */
export function foldersAfter(folders: ReadonlySet<string>, path: string, movedTo?: string): Set<string> {
  const next = new Set<string>();
  for (const folder of folders) {
    if (folder === path || folder.startsWith(`${path}/`)) {
      if (movedTo) next.add(movedTo + folder.slice(path.length));
    } else next.add(folder);
  }
  return next;
}
