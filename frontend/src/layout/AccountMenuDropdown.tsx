import { Dropdown, type MenuProps } from 'antd';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiPost, errorText } from '../api/client';
import { readCart } from '../session/cart';
import { TELEGRAM_URL } from '../config';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { loggedInEntries, loggedOutEntries, MenuActions } from './accountMenuEntries';

/** The account menu itself (entries, icons, actions): loaded on the first press of its button. */
export function AccountMenuDropdown({
  open,
  onOpenChange,
  children,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  children: ReactNode;
}) {
  const { account, role, logout } = useSession();
  const navigate = useNavigate();
  const openBillingPortal = useBillingPortal();

  const onClick: MenuProps['onClick'] = ({ key }) => {
    onOpenChange(false);
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
      open={open}
      onOpenChange={onOpenChange}
      menu={{ items: account ? loggedInEntries(role) : loggedOutEntries, onClick }}
    >
      {children}
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
