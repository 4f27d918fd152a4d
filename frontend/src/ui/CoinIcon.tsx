import { DollarCircleFilled } from '@ant-design/icons';

/** The coin shown next to balances. */
export function CoinIcon() {
  return <DollarCircleFilled aria-hidden style={{ color: '#f5b301' }} />;
}
