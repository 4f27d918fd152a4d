import { DownOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Dropdown, type MenuProps } from 'antd';
import { useNavigate } from 'react-router-dom';
import { TELEGRAM_URL } from '../config';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { loggedInEntries, loggedOutEntries, MenuActions } from './accountMenuEntries';

/** The profile dropdown; opens on click and is labelled with the account name. */
export function AccountMenu() {
  const { account, isAdmin, logout } = useSession();
  const navigate = useNavigate();
  const openBillingPortal = useBillingPortal();

  const onClick: MenuProps['onClick'] = ({ key }) => {
    switch (key) {
      case MenuActions.billing:
        openBillingPortal();
        return;
      case MenuActions.telegram:
        window.open(TELEGRAM_URL, '_blank', 'noopener,noreferrer');
        return;
      case MenuActions.logout:
        void logout();
        return;
      default:
        navigate(key);
    }
  };

  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{ items: account ? loggedInEntries(isAdmin) : loggedOutEntries, onClick }}
    >
      <Button type="text" data-testid="account-menu" icon={<UserOutlined />} style={{ color: '#fff' }}>
        {account ?? 'Account'}
        <DownOutlined style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
  );
}

/**
 * Billing opens the card-payment portal (POST /api/createPortalSession). The billing
 * endpoints are not served yet, so for now the entry only says so.
 */
function useBillingPortal() {
  const toast = useToast();
  return () => toast.info('Billing is not available yet.');
}
