// The dashboard's board tabs: one per board in order, and a button adding one.
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { failed } from '../../state.ts';
import { activeBoard, boards, loadBoards } from './boards.ts';

export function BoardTabs({ onSwitch }: { onSwitch: () => void }) {
  async function addBoard() {
    const name = window.prompt('Name of the new board');
    if (!name?.trim()) return;
    const board = await ok(api.POST('/api/boards', { body: { name: name.trim() } }));
    await loadBoards();
    activeBoard.value = board;
    onSwitch();
  }
  return (
    <div class="board-tabs">
      <div class="tabs" role="tablist" aria-label="Boards">
        {boards.value.map((board) => (
          <button
            key={board.id}
            type="button"
            role="tab"
            aria-selected={activeBoard.value?.id === board.id}
            onClick={() => {
              activeBoard.value = board;
              onSwitch();
            }}
          >
            {board.name}
          </button>
        ))}
      </div>
      <button
        type="button"
        class="ghost small"
        aria-label="Add a board"
        onClick={() => addBoard().catch(failed)}
      >
        <Icon name="plus" size={14} />
      </button>
    </div>
  );
}
