import { DownOutlined, UserOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { useSession } from '../session/useSession';
import { onDemand } from '../ui/onDemand';

// The menu (antd Dropdown and Menu, its icons) loads on the first press, not with every page.
const AccountMenuDropdown = onDemand(() =>
  import('./AccountMenuDropdown').then((m) => m.AccountMenuDropdown),
);

/** The profile dropdown; opens on click and is labelled with the account name. */
export function AccountMenu() {
  const { account } = useSession();
  const [wanted, setWanted] = useState(false);
  const [open, setOpen] = useState(false);

  const button = (
    <Button
      type="text"
      data-testid="account-menu"
      icon={<UserOutlined />}
      style={{ color: '#fff' }}
      aria-haspopup="menu"
      aria-expanded={open}
      onClick={
        wanted
          ? undefined
          : () => {
              setWanted(true);
              setOpen(true);
            }
      }
    >
      {/* On a phone only the icon shows (styles.css), so the header fits 390 px. */}
      <span className="account-name">{account ?? 'Account'}</span>
      <DownOutlined style={{ fontSize: 10 }} />
    </Button>
  );
  if (!wanted) return button;
  return (
    <AccountMenuDropdown open={open} onOpenChange={setOpen} fallback={button}>
      {button}
    </AccountMenuDropdown>
  );
}
