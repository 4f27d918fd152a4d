import {
  BgColorsOutlined,
  CopyOutlined,
  CreditCardOutlined,
  LoginOutlined,
  LogoutOutlined,
  SendOutlined,
  ShoppingCartOutlined,
  SmileOutlined,
  UnorderedListOutlined,
  UserAddOutlined,
  UserOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import type { MenuProps } from 'antd';
import { Paths } from '../paths';

/** Menu keys that do something other than go to a client path. */
export const MenuActions = {
  billing: 'billing',
  telegram: 'telegram',
  logout: 'logout',
} as const;

type MenuItems = NonNullable<MenuProps['items']>;

/** Entries whose key is a path navigate there when clicked. */
export const loggedOutEntries: MenuItems = [
  { key: Paths.login, label: 'Log in', icon: <LoginOutlined /> },
  { key: Paths.register, label: 'Register', icon: <UserAddOutlined /> },
];

/** The logged-in menu (spec section 2); Logs only for admins, as the server decides the role. */
export function loggedInEntries(isAdmin: boolean): MenuItems {
  return [
    { key: Paths.profile, label: 'Profile', icon: <UserOutlined /> },
    { type: 'divider' },
    { key: Paths.home, label: 'Clone', icon: <CopyOutlined /> },
    { key: Paths.magic, label: 'Magic Brush', icon: <BgColorsOutlined /> },
    { key: Paths.swap, label: 'Face Swap', icon: <SmileOutlined /> },
    { key: Paths.swapVideo, label: 'Video Face Swap (BETA)', icon: <VideoCameraOutlined /> },
    { type: 'divider' },
    { key: Paths.refill, label: 'Buy Coins', icon: <ShoppingCartOutlined /> },
    { key: MenuActions.billing, label: 'Billing', icon: <CreditCardOutlined /> },
    { key: MenuActions.telegram, label: 'Join Telegram', icon: <SendOutlined /> },
    ...(isAdmin ? [{ key: Paths.adminLogs, label: 'Logs', icon: <UnorderedListOutlined /> }] : []),
    { type: 'divider' },
    { key: MenuActions.logout, label: 'Log out', icon: <LogoutOutlined />, danger: true },
  ];
}
