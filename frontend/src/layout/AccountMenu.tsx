import { DownOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Dropdown, type MenuProps } from 'antd';
import { useNavigate } from 'react-router-dom';
import { apiPost, errorText } from '../api/client';
import { readCart } from '../session/cart';
import { TELEGRAM_URL } from '../config';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { loggedInEntries, loggedOutEntries, MenuActions } from './accountMenuEntries';

/** The profile dropdown; opens on click and is labelled with the account name. */
export function AccountMenu() {
  const { account, role, logout } = useSession();
  const navigate = useNavigate();
  const openBillingPortal = useBillingPortal();

  const onClick: MenuProps['onClick'] = ({ key }) => {
    switch (key) {
      case MenuActions.billing:
        void openBillingPortal();
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
      rootClassName="above-toasts"
      menu={{ items: account ? loggedInEntries(role) : loggedOutEntries, onClick }}
    >
      <Button type="text" data-testid="account-menu" icon={<UserOutlined />} style={{ color: '#fff' }}>
        {/* On a phone only the icon shows (styles.css), so the header fits 390 px. */}
        <span className="account-name">{account ?? 'Account'}</span>
        <DownOutlined style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
  );
}

/** Billing opens the card-payment portal for the account's Stripe customer. */
function useBillingPortal() {
  const toast = useToast();
  const { account } = useSession();
  return async () => {
    const result = await apiPost<string>('/createPortalSession', { username: account, cart: readCart() });
    if (result.ok && result.body) window.location.assign(result.body.content);
    else toast.error(errorText(result));
  };
}
