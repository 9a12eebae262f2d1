// A space's pages as a tree: each sibling group in display order (position, then title).
import type { PageSummary } from './store.ts';

export interface PageNode extends PageSummary {
  depth: number;
  children?: PageNode[];
}

/** The top-level pages with their descendants nested under `children`. */
export function buildTree(pages: PageSummary[]): PageNode[] {
  const byParent = new Map<string | null, PageSummary[]>();
  for (const page of pages) {
    const group = byParent.get(page.parent_id) ?? [];
    group.push(page);
    byParent.set(page.parent_id, group);
  }
  const nest = (parentId: string | null, depth: number): PageNode[] =>
    (byParent.get(parentId) ?? []).map((page) => ({
      ...page,
      depth,
      children: nest(page.id, depth + 1),
    }));
  return nest(null, 0);
}

/** Every page in depth-first display order, each with its depth and without children. */
export function flatten(roots: PageNode[]): PageNode[] {
  return roots.flatMap(({ children, ...page }) => [page, ...flatten(children ?? [])]);
}
