// The dashboard's grid: the layout's cards on a 12-column gridstack grid, dragged and resized by the owner.
import { GridStack, type GridStackNode } from 'gridstack';
import { Component, createRef } from 'preact';
import type { components } from '../../api.d.ts';
import { Icon } from '../../components/Icon.tsx';
import { type Card, CardContent, cardTitle } from './cards/index.tsx';

export type Layout = components['schemas']['DashboardLayout'];

/** Every card type the layout API takes (the compiler holds this list to the generated API types), with its title. */
export const titles: Record<Card['type'], string> = {
  clock: 'Clock',
  weather: 'Weather',
  host: 'Host',
  speedtest: 'Speed test',
  cluster: 'Cluster',
  storage: 'Storage',
  backups: 'Backups',
  'ai-usage': 'AI usage',
  health: 'Service health',
  blank: 'Spacer',
  flame: 'Flame',
  apps: 'Apps',
  bookmarks: 'Bookmarks',
  custom: 'Custom',
  incidents: 'Incidents',
};
export const cardTypes = Object.keys(titles) as Card['type'][];

interface GridProps {
  layout: Layout;
  onChange: (nodes: GridStackNode[]) => void;
  onRemove: (id: string) => void;
}

/** The grid belongs to gridstack once mounted: it never re-renders, a new layout mounts a new one (by key). */
export class Grid extends Component<GridProps> {
  host = createRef<HTMLDivElement>();
  grid: GridStack | null = null;
  shouldComponentUpdate() {
    return false;
  }
  componentDidMount() {
    // Snap packs the cards in list order, as the hub does; free keeps them where they are dropped.
    const mode = this.props.layout.mode === 'free' ? 'float' : 'list';
    this.grid = GridStack.init(
      {
        column: 12,
        cellHeight: 96,
        margin: 6,
        mode,
        handle: '.card-head',
        animate: false,
        columnOpts: { breakpoints: [{ w: 760, c: 1 }] },
      },
      this.host.current!,
    );
    this.grid?.on('change', (_event, nodes) => this.props.onChange(this.grid?.engine.nodes ?? nodes));
  }
  componentWillUnmount() {
    this.grid?.destroy(false);
  }
  render() {
    return (
      <div class="grid-stack" ref={this.host}>
        {this.props.layout.cards.map((card) => {
          const title = cardTitle(card, titles[card.type]);
          return (
            <div
              key={card.id}
              class="grid-stack-item"
              gs-id={card.id}
              gs-x={card.x}
              gs-y={card.y}
              gs-w={card.w}
              gs-h={card.h}
              data-card={card.type}
            >
              <section class={`grid-stack-item-content card card-${card.type}`} aria-label={title}>
                <header class="card-head">
                  <h2>{title}</h2>
                  <button
                    type="button"
                    class="ghost small card-remove"
                    aria-label={`Remove ${title} card`}
                    onClick={() => this.props.onRemove(card.id)}
                  >
                    <Icon name="x" size={14} />
                  </button>
                </header>
                <div class="card-body">
                  <CardContent card={card} />
                </div>
              </section>
            </div>
          );
        })}
      </div>
    );
  }
}
