import { formatCount } from '@studio/contracts';
import { Link } from 'react-router-dom';
import { Paths } from '../paths';
import { CoinIcon } from '../ui/CoinIcon';

/** The coin balance; clicking it leads to Buy Coins. */
export function BalanceLink({ balance }: { balance: number }) {
  return (
    <Link
      to={Paths.refill}
      className="app-balance"
      data-testid="balance"
      title="Buy coins"
      aria-label={`${formatCount(balance)} coins, buy coins`}
    >
      <CoinIcon />
      <span>{formatCount(balance)}</span>
    </Link>
  );
}
