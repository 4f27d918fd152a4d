/**
 * Wide enough for the open tray to stand beside the page instead of over it: the layout then
 * leaves the tray's width free on the right (styles.css, `.job-tray-docked`), so the form a job
 * was started from stays in view. Narrower screens get the Jobs button only until it is pressed.
 */
export const TRAY_DOCK_QUERY = '(min-width: 1280px)';

export function trayCanDock(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(TRAY_DOCK_QUERY).matches;
}
