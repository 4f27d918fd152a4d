import {
  BgColorsOutlined,
  CopyOutlined,
  ControlOutlined,
  HistoryOutlined,
  ThunderboltOutlined,
  CreditCardOutlined,
  CustomerServiceOutlined,
  EyeOutlined,
  FlagOutlined,
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
import { canModerate, canSupport, type Role } from '@studio/contracts';
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

/**
 * The logged-in menu (spec section 2). The console's entries follow the role the server reports:
 * Logs and Operations for admins, Support for support staff and admins, Moderation for moderators
 * and admins.
 */
export function loggedInEntries(role: Role | null): MenuItems {
  const isAdmin = role === 'admin';
  const consoleEntries: MenuItems = [
    ...(isAdmin ? [{ key: Paths.adminLogs, label: 'Logs', icon: <UnorderedListOutlined /> }] : []),
    ...(role && canSupport(role)
      ? [
          { key: Paths.adminSupport, label: 'Support', icon: <CustomerServiceOutlined /> },
          { key: Paths.adminReports, label: 'Reports', icon: <FlagOutlined /> },
        ]
      : []),
    ...(role && canModerate(role)
      ? [{ key: Paths.adminModeration, label: 'Moderation', icon: <EyeOutlined /> }]
      : []),
    ...(isAdmin ? [{ key: Paths.adminOperations, label: 'Operations', icon: <ControlOutlined /> }] : []),
  ];
  return [
    { key: Paths.profile, label: 'Profile', icon: <UserOutlined /> },
    { key: Paths.jobs, label: 'My jobs', icon: <ThunderboltOutlined /> },
    { key: Paths.credits, label: 'Credit history', icon: <HistoryOutlined /> },
    { type: 'divider' },
    { key: Paths.home, label: 'Clone', icon: <CopyOutlined /> },
    { key: Paths.magic, label: 'Magic Brush', icon: <BgColorsOutlined /> },
    { key: Paths.swap, label: 'Face Swap', icon: <SmileOutlined /> },
    { key: Paths.swapVideo, label: 'Video Face Swap (BETA)', icon: <VideoCameraOutlined /> },
    { type: 'divider' },
    { key: Paths.refill, label: 'Buy Coins', icon: <ShoppingCartOutlined /> },
    { key: MenuActions.billing, label: 'Billing', icon: <CreditCardOutlined /> },
    { key: MenuActions.telegram, label: 'Join Telegram', icon: <SendOutlined /> },
    ...(consoleEntries.length > 0 ? [{ type: 'divider' as const }, ...consoleEntries] : []),
    { type: 'divider' },
    { key: MenuActions.logout, label: 'Log out', icon: <LogoutOutlined />, danger: true },
  ];
}
