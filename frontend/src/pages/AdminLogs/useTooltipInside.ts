import { useEffect, type RefObject } from 'react';
import { placeInside } from './faceSwapChart';

/** G2's gap between the pointer and its tooltip (its default offset). */
const TOOLTIP_GAP = 10;

/**
 * Keeps the chart's HTML tooltip ('.g2-tooltip') inside the element `ref` points at. G2 flips a
 * tooltip that would overflow only once it has measured it, which it skips on the first hover and
 * on quick moves, so the tooltip of the right-most point used to hang past the page's edge.
 */
export function useTooltipInside(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const frame = ref.current;
    if (!frame) return;
    const fit = () => {
      const tooltip = frame.querySelector<HTMLElement>('.g2-tooltip');
      if (!tooltip || tooltip.style.visibility === 'hidden' || !tooltip.style.left) return;
      const parent = (tooltip.offsetParent as HTMLElement | null) ?? document.body;
      const parentBox = parent.getBoundingClientRect();
      const frameBox = frame.getBoundingClientRect();
      const next = placeInside(
        {
          left: parseFloat(tooltip.style.left),
          top: parseFloat(tooltip.style.top) || 0,
          width: tooltip.offsetWidth,
          height: tooltip.offsetHeight,
        },
        {
          left: frameBox.left - parentBox.left - parent.clientLeft,
          top: frameBox.top - parentBox.top - parent.clientTop,
          width: frameBox.width,
          height: frameBox.height,
        },
        TOOLTIP_GAP,
      );
      if (!next) return;
      // A jump to the pointer's other side, not a slide across the chart.
      const transition = tooltip.style.transition;
      tooltip.style.transition = 'none';
      tooltip.style.left = `${next.left}px`;
      tooltip.style.top = `${next.top}px`;
      void tooltip.offsetWidth;
      tooltip.style.transition = transition;
    };
    const observer = new MutationObserver(fit);
    observer.observe(frame, { subtree: true, childList: true, attributes: true, attributeFilter: ['style'] });
    return () => observer.disconnect();
  }, [ref]);
}
