import { ALLOWANCE_NOT_EXPECTED, ALLOWANCE_REFUSAL_TEXTS, allowanceOffer } from '@studio/contracts';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { AppProviders } from '../AppProviders';
import { AllowanceNotice } from './AllowanceNotice';

const show = (status: Parameters<typeof AllowanceNotice>[0]['status']) =>
  render(
    <MemoryRouter>
      <AppProviders>
        <AllowanceNotice status={status} />
      </AppProviders>
    </MemoryRouter>,
  );

describe('AllowanceNotice before the address is verified', () => {
  it('offers the free coins when nothing stands in the way', () => {
    show({ state: 'unverified', coins: 25 });
    expect(screen.getByTestId('allowance-notice')).toHaveTextContent(`${allowanceOffer(25)}.`);
  });

  it('does not promise coins the server already knows will not come, and says why', () => {
    show({ state: 'unverified', coins: 25, expected: 'address_today' });
    const notice = screen.getByTestId('allowance-notice');
    expect(notice).toHaveTextContent(ALLOWANCE_NOT_EXPECTED);
    expect(notice).toHaveTextContent(ALLOWANCE_REFUSAL_TEXTS.address_today.why);
    expect(notice).not.toHaveTextContent(allowanceOffer(25));
    expect(notice).toHaveAttribute('data-reason', 'address_today');
    // Verifying still finishes the account: the link can be sent again.
    expect(screen.getByRole('button', { name: /send/i })).toBeInTheDocument();
  });
});
