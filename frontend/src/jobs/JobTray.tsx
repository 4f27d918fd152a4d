import { SyncOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Badge, Button } from 'antd';
import { useCallback, useEffect, useRef } from 'react';
import { useSession } from '../session/useSession';
import { onDemand } from '../ui/onDemand';
import { isActive } from './jobsState';
import { trayCanDock } from './trayDock';
import { useJobs } from './useJobs';

// The panel (cards, progress bars, tags) downloads when the tray first opens, not with the page.
const JobTrayPanel = onDemand(() => import('./JobTrayPanel').then((m) => m.JobTrayPanel));

/**
 * The job tray on every page (in the layout): a floating button with the number of running jobs,
 * and a panel that opens by itself when a job starts, with live progress from the socket.
 */
export function JobTray() {
  const { loggedIn } = useSession();
  const { jobs, trayOpen, setTrayOpen } = useJobs();
  // Docked beside the page it covers nothing, and closing it would move the page under the pointer.
  const pressedInside = useCloseOnOutsideClick(trayOpen && !trayCanDock(), () => setTrayOpen(false));
  if (!loggedIn) return null;

  const active = jobs.filter(isActive);
  return (
    <div className="job-tray" onMouseDown={pressedInside}>
      {trayOpen && <JobTrayPanel jobs={jobs} onClose={() => setTrayOpen(false)} />}
      <Badge count={active.length} offset={[-6, 4]}>
        <Button
          className="job-tray-toggle"
          shape="round"
          size="large"
          type={trayOpen ? 'default' : 'primary'}
          icon={active.length > 0 ? <SyncOutlined spin /> : <ThunderboltOutlined />}
          aria-expanded={trayOpen}
          data-testid="job-tray-toggle"
          onClick={() => setTrayOpen(!trayOpen)}
        >
          Jobs
        </Button>
      </Badge>
    </div>
  );
}

/**
 * The open panel floats over the page's bottom-right corner, where tools keep their action button:
 * a press anywhere else on the page folds it back into the Jobs button (toasts excepted).
 *
 * "Inside" is the tray's React tree, not its DOM: a confirmation it opens (Cancel → "Cancel batch")
 * is drawn in a popup at the end of the document, and a press there must not close the tray (that
 * unmounted the confirmation before its click, so nothing was cancelled). React passes the press
 * through the tray's element (the returned handler) before it reaches the document's listener.
 */
function useCloseOnOutsideClick(open: boolean, close: () => void): () => void {
  const latestClose = useRef(close);
  latestClose.current = close;
  const inside = useRef(false);
  useEffect(() => {
    if (!open) return;
    const onPress = (event: MouseEvent) => {
      const fromTray = inside.current;
      inside.current = false;
      const target = event.target as Element | null;
      if (!target || fromTray || target.closest('.ant-notification')) return;
      latestClose.current();
    };
    document.addEventListener('mousedown', onPress);
    return () => document.removeEventListener('mousedown', onPress);
  }, [open]);
  return useCallback(() => {
    inside.current = true;
  }, []);
}
