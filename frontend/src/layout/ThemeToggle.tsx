import { MoonOutlined, SunOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useThemeMode } from '../ui/themeMode';

/** Switches between light and dark; the choice is kept for the logged-in user in this browser. */
export function ThemeToggle() {
  const { mode, toggle } = useThemeMode();
  const label = mode === 'dark' ? 'Light mode' : 'Dark mode';
  return (
    <Tooltip title={label}>
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
    </Tooltip>
  );
}
