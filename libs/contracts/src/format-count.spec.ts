import { PaymentMessages } from './billing';
import { formatCount, plural } from './messages';

describe('formatCount', () => {
  it('writes counts with thousands separators', () => {
    expect(formatCount(5_000_000)).toBe('5,000,000');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(-1_234)).toBe('-1,234');
    expect(formatCount(0)).toBe('0');
  });

  it('is what plural and the payment message use', () => {
    expect(plural(1_001, 'credit')).toBe('1,001 credits');
    expect(plural(1, 'credit')).toBe('1 credit');
    expect(PaymentMessages.credited(2_000)).toBe('2,000 coins added to your balance.');
  });
});
