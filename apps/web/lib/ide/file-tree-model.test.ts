import { describe, expect, it } from "vitest";
import { buildTree, foldersAfter, sortedChildren, type TreeNode } from "./file-tree-model";

const names = (node: TreeNode) => sortedChildren(node).map((child) => (child.children ? `${child.name}/` : child.name));
const at = (node: TreeNode, ...parts: string[]) => parts.reduce((n, part) => n.children!.get(part)!, node);

describe("file tree model", () => {
  it("nests files in their folders, folders first then by name", () => {
    const root = buildTree(["b.py", "src/app/main.ts", "a.txt", "src/util.ts", "docs/readme.md"], []);
    expect(names(root)).toEqual(["docs/", "src/", "a.txt", "b.py"]);
    expect(names(at(root, "src"))).toEqual(["app/", "util.ts"]);
    expect(at(root, "src", "app", "main.ts")).toEqual({ name: "main.ts", path: "src/app/main.ts", children: null });
  });

  it("shows an empty folder the tree made, and one that later holds a file only once", () => {
    const root = buildTree(["new/inside.py"], ["new", "empty/deeper"]);
    expect(names(root)).toEqual(["empty/", "new/"]);
    expect(names(at(root, "empty"))).toEqual(["deeper/"]);
    expect(names(at(root, "new"))).toEqual(["inside.py"]);
  });

  it("an empty folder removed goes with what is under it; moved, it follows", () => {
    const folders = new Set(["a", "a/b", "ab", "c"]);
    expect([...foldersAfter(folders, "a")]).toEqual(["ab", "c"]);
    expect([...foldersAfter(folders, "a", "x/a")]).toEqual(["x/a", "x/a/b", "ab", "c"]);
  });
});
