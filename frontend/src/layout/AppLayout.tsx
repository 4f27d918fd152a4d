import { Layout } from 'antd';
import { Outlet } from 'react-router-dom';
import { JobTray } from '../jobs/JobTray';
import { useJobs } from '../jobs/useJobs';
import { useSession } from '../session/useSession';
import { AppFooter } from './AppFooter';
import { TOAST_DOCK_ID } from '../ui/toast';
import { AppHeader } from './AppHeader';
import { StudioBanner } from './StudioBanner';

/** The frame of every screen: header (with the outage banner and toast dock), the routed page in a centred column, footer, job tray. */
export function AppLayout() {
  const { trayOpen } = useJobs();
  const { loggedIn } = useSession();
  // Wide screens keep the open job tray's width free on the right (jobs/trayDock.ts).
  const docked = trayOpen && loggedIn;
  return (
    <Layout className={docked ? 'app-shell job-tray-docked' : 'app-shell'}>
      {/* On phones toasts stand under the header, in the page's flow (ui/toast.ts). */}
      <div className="app-top">
        <AppHeader />
        <StudioBanner />
        <div id={TOAST_DOCK_ID} className="toast-dock" />
      </div>
      <Layout.Content className="app-content">
        <div className="app-page">
          <Outlet />
        </div>
      </Layout.Content>
      <AppFooter />
      <JobTray />
    </Layout>
  );
}
