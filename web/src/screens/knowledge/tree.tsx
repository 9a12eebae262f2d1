// A space's page tree: every page at its depth, each a link to its address; drag a page onto the top or bottom edge
// of another to place it before or after, onto the middle to nest it.
import { useSignal } from '@preact/signals';
import { Icon } from '../../components/Icon.tsx';
import type { PageNode } from '../../types.ts';

export type Drop = 'before' | 'after' | 'into';

function flatten(nodes: PageNode[]): PageNode[] {
  return nodes.flatMap((node) => [node, ...flatten((node.children ?? []) as PageNode[])]);
}

export function Tree({
  nodes,
  selected,
  onMove,
}: {
  nodes: PageNode[];
  selected?: string;
  onMove: (id: string, target: PageNode, where: Drop) => void;
}) {
  const over = useSignal<{ id: string; where: Drop } | null>(null);
  const where = (event: DragEvent): Drop => {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    const at = (event.clientY - box.top) / box.height;
    return at < 0.3 ? 'before' : at > 0.7 ? 'after' : 'into';
  };
  return (
    <ul class="tree" aria-label="Pages">
      {flatten(nodes).map((node) => (
        <li
          key={node.id}
          class={[
            node.id === selected ? 'selected' : '',
            over.value?.id === node.id ? `drop-${over.value?.where}` : '',
          ]
            .join(' ')
            .trim()}
          data-page-id={node.id}
          style={{ paddingLeft: `${8 + node.depth * 16}px` }}
          draggable
          onDragStart={(event) => {
            event.dataTransfer?.setData('text/x-page', node.id);
            if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
          }}
          onDragOver={(event) => {
            event.preventDefault();
            over.value = { id: node.id, where: where(event) };
          }}
          onDragLeave={() => {
            if (over.value?.id === node.id) over.value = null;
          }}
          onDrop={(event) => {
            event.preventDefault();
            const id = event.dataTransfer?.getData('text/x-page');
            const place = where(event);
            over.value = null;
            if (id && id !== node.id) onMove(id, node, place);
          }}
        >
          <a href={`/knowledge/page/${node.id}`}>
            <Icon name="file" size={15} />
            {node.title}
          </a>
        </li>
      ))}
    </ul>
  );
}
