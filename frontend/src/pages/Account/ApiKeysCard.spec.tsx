import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ApiKeyView } from '@studio/contracts';
import { AppProviders } from '../../AppProviders';
import { callsTo, mockFetch } from '../../test/fetchMock';
import { ApiKeysCard } from './ApiKeysCard';

const ok = (content: unknown, status = 200) => ({ status, body: { message: 'success', content } });
const days = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);
const noUsage = ok({ days, rows: [] });

const key = (over: Partial<ApiKeyView> = {}): ApiKeyView => ({
  id: 'k1',
  name: 'Weekly upscales',
  scopes: ['read', 'tools'],
  preview: 'sk_studio_AbCd',
  monthlyCap: 50,
  spentThisMonth: 12,
  revokeOnPasswordChange: false,
  createdAt: '2026-11-01T10:00:00.000Z',
  ...over,
});

describe('ApiKeysCard', () => {
  it('lists keys with their permissions and spend, never a secret', async () => {
    mockFetch({
      'GET /api/account/api-keys': ok([
        key(),
        key({ id: 'k2', name: 'Old', revokedAt: '2026-11-02T10:00:00.000Z' }),
      ]),
      'GET /api/account/api-keys/usage': ok({
        days,
        rows: [
          { day: '2026-11-03', keyId: 'k1', tool: 'clone', jobs: 3, coins: 3 },
          { day: '2026-11-04', keyId: 'k1', tool: 'superResolution', jobs: 1, coins: 4 },
          { day: '2026-11-04', keyId: 'k2', tool: 'clone', jobs: 2, coins: 0 },
        ],
      }),
    });
    render(
      <AppProviders>
        <ApiKeysCard />
      </AppProviders>,
    );
    const rows = await screen.findAllByTestId('api-key');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByText('12 of 50 coins spent this month')).toBeInTheDocument();
    expect(within(rows[0]).getByText(/Run tools \(spends coins\)/)).toBeInTheDocument();
    expect(within(rows[1]).getByText('Revoked')).toBeInTheDocument();
    expect(within(rows[1]).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
    // Usage: coins per day and key in the chart, totals per key and tool in the table.
    const chart = await screen.findByTestId('chart-column', {}, { timeout: 20_000 });
    const points = JSON.parse(chart.getAttribute('data-points')!) as {
      day: string;
      key: string;
      coins: number;
    }[];
    // Every day of the window for each key used in it, so the columns stand on a 30-day timeline.
    expect(points).toHaveLength(60);
    expect(points.filter((p) => p.coins > 0)).toEqual([
      { day: '11-03', key: 'Weekly upscales', coins: 3 },
      { day: '11-04', key: 'Weekly upscales', coins: 4 },
    ]);
    expect(points.slice(0, 2)).toEqual([
      { day: '11-01', key: 'Weekly upscales', coins: 0 },
      { day: '11-01', key: 'Old', coins: 0 },
    ]);
    const table = within(screen.getByTestId('api-key-usage')).getAllByRole('row');
    expect(table.map((row) => row.textContent)).toEqual([
      'KeyToolJobsCoins',
      'Weekly upscalesSuper resolution14',
      'Weekly upscalesClones33',
      'OldClones20',
    ]);
  }, 30_000);

  it('makes a key with the chosen permissions and cap and shows its secret once', async () => {
    let listed: ApiKeyView[] = [];
    const made = key({ id: 'k3', name: 'Shop', scopes: ['read'], monthlyCap: 20, spentThisMonth: 0 });
    const fetchMock = mockFetch({
      'GET /api/account/api-keys': () => ok(listed),
      'GET /api/account/api-keys/usage': noUsage,
      'POST /api/account/api-keys': () => {
        listed = [made];
        return ok({ key: made, secret: 'sk_studio_secretvalue' }, 201);
      },
    });
    render(
      <AppProviders>
        <ApiKeysCard />
      </AppProviders>,
    );
    await screen.findByText('No API keys yet');
    fireEvent.click(screen.getByRole('button', { name: 'New key' }));
    const dialog = await screen.findByRole('dialog', { name: 'New API key' });
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Shop' } });
    fireEvent.click(within(dialog).getByLabelText('Run tools (spends coins)'));
    fireEvent.change(within(dialog).getByLabelText('Monthly spending cap (coins)'), {
      target: { value: '20' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Make key' }));
    const shown = await screen.findByTestId('api-key-secret');
    expect(shown).toHaveTextContent('sk_studio_secretvalue');
    const [sent] = callsTo(fetchMock, 'POST /api/account/api-keys');
    expect(JSON.parse(String(sent.body))).toEqual({
      name: 'Shop',
      scopes: ['read'],
      monthlyCap: 20,
      revokeOnPasswordChange: false,
    });
    fireEvent.click(screen.getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByTestId('api-key-secret')).not.toBeInTheDocument());
    expect(await screen.findByText('0 of 20 coins spent this month')).toBeInTheDocument();
  }, 30_000);

  it('revokes a key after a confirmation', async () => {
    let listed = [key()];
    const fetchMock = mockFetch({
      'GET /api/account/api-keys': () => ok(listed),
      'GET /api/account/api-keys/usage': noUsage,
      'DELETE /api/account/api-keys/k1': () => {
        listed = [key({ revokedAt: '2026-11-03T10:00:00.000Z' })];
        return ok(listed[0]);
      },
    });
    render(
      <AppProviders>
        <ApiKeysCard />
      </AppProviders>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke Weekly upscales' }));
    expect(callsTo(fetchMock, 'DELETE /api/account/api-keys/k1')).toHaveLength(0);
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('Revoked')).toBeInTheDocument();
    expect(callsTo(fetchMock, 'DELETE /api/account/api-keys/k1')).toHaveLength(1);
  });
});
