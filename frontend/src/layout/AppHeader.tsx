import { Layout, Space } from 'antd';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../config';
import { Paths } from '../paths';
import { useSession } from '../session/useSession';
import { AccountMenu } from './AccountMenu';
import { ThemeToggle } from './ThemeToggle';
import { BalanceLink } from './BalanceLink';

/** Top bar (spec section 2): logo, coin balance, light/dark toggle, account menu. */
export function AppHeader() {
  const { loggedIn, balance } = useSession();
  return (
    <Layout.Header className="app-header">
      <Link to={Paths.home} className="app-logo">
        {PRODUCT_NAME}
      </Link>
      <Space size="small" className="app-header-end">
        {/* The spec shows an unknown balance as 0. */}
        {loggedIn && <BalanceLink balance={balance ?? 0} />}
        <ThemeToggle />
        <AccountMenu />
      </Space>
    </Layout.Header>
  );
}
