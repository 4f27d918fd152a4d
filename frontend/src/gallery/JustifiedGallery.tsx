import { PlayCircleFilled } from '@ant-design/icons';
import { ContentMessages, formatCount, type ContentItem } from '@studio/contracts';
import { Button, Grid } from 'antd';
import { useState } from 'react';
import { ProvenanceLabel } from '../provenance/ProvenanceLabel';
import './gallery.css';

/** Tiles shown at first, and added by "Show more" (each one a request for its preview). */
const BATCH = 48;
/** Very wide or tall pictures are cropped to this width/height ratio, or one would fill a row. */
const RATIO_LIMITS = { min: 0.4, max: 2.5 } as const;

const ratioOf = (width: number, height: number) =>
  Math.min(RATIO_LIMITS.max, Math.max(RATIO_LIMITS.min, width / height));

/**
 * Items as justified rows: each tile keeps its picture's aspect (measured when the preview
 * loads; square until then) and the rows fill the width. A click opens the item at its index.
 */
export function JustifiedGallery({ items, onOpen }: { items: ContentItem[]; onOpen(index: number): void }) {
  const screens = Grid.useBreakpoint();
  const rowHeight = screens.md ? 220 : 140;
  const [ratios, setRatios] = useState<Record<string, number>>({});
  const [shown, setShown] = useState(BATCH);

  const measured = (id: string, width: number, height: number) => {
    if (!width || !height) return;
    setRatios((known) => (known[id] ? known : { ...known, [id]: ratioOf(width, height) }));
  };

  return (
    <>
      <ul className="justified-gallery" aria-label="Items">
        {items.slice(0, shown).map((item, index) => {
          const ratio = ratios[item._id] ?? 1;
          const title = item.title ?? ContentMessages.noTitle;
          return (
            <li
              key={item._id}
              data-testid="content-item"
              style={{ flexGrow: ratio, flexBasis: ratio * rowHeight }}
            >
              <button
                type="button"
                className="justified-gallery-tile"
                aria-label={`Open ${title}`}
                onClick={() => onOpen(index)}
              >
                <span style={{ display: 'block', paddingBottom: `${100 / ratio}%` }} />
                {item.kind === 'video' ? (
                  <video
                    src={item.url}
                    preload="metadata"
                    muted
                    playsInline
                    onLoadedMetadata={(e) =>
                      measured(item._id, e.currentTarget.videoWidth, e.currentTarget.videoHeight)
                    }
                  />
                ) : (
                  <img
                    src={item.url}
                    alt={title}
                    loading="lazy"
                    onLoad={(e) =>
                      measured(item._id, e.currentTarget.naturalWidth, e.currentTarget.naturalHeight)
                    }
                  />
                )}
                {item.kind === 'video' && <PlayCircleFilled className="justified-gallery-play" aria-hidden />}
                <span className="justified-gallery-caption">{title}</span>
              </button>
              {/* Beside the button, not in it: the button's name ("Open <title>") holds all its visible text (WCAG 2.5.3). */}
              <ProvenanceLabel item={item} className="justified-gallery-ai" />
            </li>
          );
        })}
      </ul>
      {items.length > shown && (
        <Button block onClick={() => setShown((n) => n + BATCH)} style={{ marginTop: 16 }}>
          Show more ({formatCount(items.length - shown)})
        </Button>
      )}
    </>
  );
}
