import { render, screen } from '@testing-library/react';
import { mockFetch } from '../../test/fetchMock';
import { AllowanceTotals } from './AllowanceTotals';

describe('AllowanceTotals', () => {
  it('shows the free allowances granted, apart from purchases', async () => {
    mockFetch({
      'GET /api/admin/allowances': {
        status: 200,
        body: {
          message: 'success',
          content: {
            coinsEach: 25,
            today: { count: 2, coins: 50 },
            week: { count: 5, coins: 125 },
            month: { count: 9, coins: 225 },
          },
        },
      },
    });
    render(<AllowanceTotals />);
    const card = await screen.findByTestId('allowance-totals');
    expect(card).toHaveTextContent('Free allowances (25 coins each)');
    expect(card).toHaveTextContent('Today2· 50 coins');
    expect(card).toHaveTextContent('Last 30 days9· 225 coins');
  });
});
