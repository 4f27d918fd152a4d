import { MoonOutlined, SunOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useThemeMode } from '../ui/themeMode';

/**
 * Switches between light and dark; the choice is kept for the logged-in user in this browser.
 * Its hint is drawn by CSS (styles.css, `.header-hint`) in antd Tooltip's look: antd's Tooltip
 * would bring its popup machinery (and antd's Form, which it imports) into every first load.
 */
export function ThemeToggle() {
  const { mode, toggle } = useThemeMode();
  const label = mode === 'dark' ? 'Light mode' : 'Dark mode';
  return (
    <span className="header-hint" data-hint={label}>
      <Button
        type="text"
        shape="circle"
        data-testid="theme-toggle"
        aria-label={label}
        aria-pressed={mode === 'dark'}
        icon={mode === 'dark' ? <SunOutlined /> : <MoonOutlined />}
        onClick={toggle}
        style={{ color: '#fff' }}
      />
    </span>
  );
}
