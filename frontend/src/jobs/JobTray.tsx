import { SyncOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Badge, Button } from 'antd';
import { useEffect, useRef, type RefObject } from 'react';
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
  const tray = useRef<HTMLDivElement>(null);
  // Docked beside the page it covers nothing, and closing it would move the page under the pointer.
  useCloseOnOutsideClick(tray, trayOpen && !trayCanDock(), () => setTrayOpen(false));
  if (!loggedIn) return null;

  const active = jobs.filter(isActive);
  return (
    <div className="job-tray" ref={tray}>
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
 */
function useCloseOnOutsideClick(tray: RefObject<HTMLDivElement | null>, open: boolean, close: () => void) {
  const latestClose = useRef(close);
  latestClose.current = close;
  useEffect(() => {
    if (!open) return;
    const onPress = (event: MouseEvent) => {
      const target = event.target as Element | null;
      if (!target || tray.current?.contains(target) || target.closest('.ant-notification')) return;
      latestClose.current();
    };
    document.addEventListener('mousedown', onPress);
    return () => document.removeEventListener('mousedown', onPress);
  }, [open, tray]);
}
