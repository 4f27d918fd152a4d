import { Layout } from 'antd';
import { Outlet } from 'react-router-dom';
import { JobTray } from '../jobs/JobTray';
import { AppFooter } from './AppFooter';
import { AppHeader } from './AppHeader';

/** The frame of every screen: header, the routed page in a centred column, footer, job tray. */
export function AppLayout() {
  return (
    <Layout className="app-shell">
      <AppHeader />
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
