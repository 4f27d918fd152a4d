import {
  BgColorsOutlined,
  CopyOutlined,
  ExpandOutlined,
  PictureOutlined,
  SmileOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { NavLink } from 'react-router-dom';
import { Paths } from '../paths';
import { CoinIcon } from './CoinIcon';
import { PlainText, PlainTitle } from './PlainTypography';

const TOOLS = [
  { to: Paths.home, label: 'Clone', icon: <CopyOutlined /> },
  { to: Paths.superResolution, label: 'Super resolution', icon: <ExpandOutlined /> },
  { to: Paths.swap, label: 'Face swap', icon: <SmileOutlined /> },
  { to: Paths.magic, label: 'Magic Brush', icon: <BgColorsOutlined /> },
  { to: Paths.generate, label: 'Generate', icon: <PictureOutlined /> },
  { to: Paths.swapVideo, label: 'Video swap', icon: <VideoCameraOutlined /> },
];

interface ToolFrameProps {
  title: string;
  description: string;
  /** What one use costs, e.g. '1 credit per clone'. */
  price: string;
  children: ReactNode;
}

/** The frame of the image tool screens: a switcher between the tools, a heading and the price. */
export function ToolFrame({ title, description, price, children }: ToolFrameProps) {
  const tabs = useRef<HTMLElement>(null);
  // On a phone the tabs scroll sideways: the current tool's tab is brought into the row's middle,
  // so "Face swap" never opens cut to "Face s…" (the row's scroll only, never the page's).
  useLayoutEffect(() => {
    const row = tabs.current;
    const active = row?.querySelector<HTMLElement>('.tool-tab.active');
    if (!row || !active || row.scrollWidth <= row.clientWidth) return;
    row.scrollLeft = active.offsetLeft - (row.clientWidth - active.offsetWidth) / 2;
  }, [title]);
  return (
    <div className="tool-page">
      <nav className="tool-tabs" aria-label="Tools" ref={tabs}>
        {TOOLS.map((tool) => (
          <NavLink key={tool.to} to={tool.to} end className="tool-tab">
            {tool.icon} {tool.label}
          </NavLink>
        ))}
      </nav>
      <div className="tool-heading">
        <div>
          <PlainTitle level={2}>{title}</PlainTitle>
          <PlainText secondary>{description}</PlainText>
        </div>
        <span className="tool-price" data-testid="tool-price">
          <CoinIcon /> {price}
        </span>
      </div>
      {children}
    </div>
  );
}
