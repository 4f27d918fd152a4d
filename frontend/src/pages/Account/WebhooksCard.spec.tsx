import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { WebhookDeliveryView, WebhookEndpointView } from '@studio/contracts';
import { AppProviders } from '../../AppProviders';
import { callsTo, mockFetch } from '../../test/fetchMock';
import { WebhooksCard } from './WebhooksCard';

const ok = (content: unknown, status = 200) => ({ status, body: { message: 'success', content } });

const endpoint = (over: Partial<WebhookEndpointView> = {}): WebhookEndpointView => ({
  id: 'e1',
  url: 'https://example.com/hook',
  events: ['job.succeeded', 'job.failed'],
  enabled: true,
  secretPreview: 'whsec_AbCd',
  createdAt: '2026-11-01T10:00:00.000Z',
  ...over,
});
const delivery = (over: Partial<WebhookDeliveryView> = {}): WebhookDeliveryView => ({
  id: 'msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa',
  endpointId: 'e1',
  type: 'job.failed',
  status: 'failed',
  attempts: 10,
  lastStatusCode: 500,
  createdAt: '2026-11-02T10:00:00.000Z',
  ...over,
});

/** The card with no endpoint yet, and its "New webhook" dialog opened. */
async function openNewWebhook(): Promise<HTMLElement> {
  render(
    <AppProviders>
      <WebhooksCard />
    </AppProviders>,
  );
  await screen.findByText('No webhooks yet');
  fireEvent.click(screen.getByRole('button', { name: 'New webhook' }));
  return screen.findByRole('dialog', { name: 'New webhook' });
}

describe('WebhooksCard', () => {
  it.each([
    [true, /on this local install, a receiver on this machine: http:\/\/127\.0\.0\.1/],
    [false, /^https:\/\/ and reachable from the internet\.$/],
  ])('says which addresses this install takes (local receivers: %s)', async (localReceivers, hint) => {
    mockFetch({
      'GET /api/account/webhooks': ok([]),
      'GET /api/account/webhooks/deliveries': ok([]),
      'GET /api/account/webhooks/settings': ok({ localReceivers }),
    });
    const dialog = await openNewWebhook();
    await waitFor(() => expect(within(dialog).getByText(hint)).toBeInTheDocument());
  });

  it('registers an endpoint for the chosen events and shows its secret once', async () => {
    let listed: WebhookEndpointView[] = [];
    const made = endpoint({ events: ['job.succeeded', 'job.failed', 'job.cancelled', 'balance.changed'] });
    const fetchMock = mockFetch({
      'GET /api/account/webhooks': () => ok(listed),
      'GET /api/account/webhooks/deliveries': ok([]),
      'POST /api/account/webhooks': () => {
        listed = [made];
        return ok({ endpoint: made, secret: 'whsec_secretvalue' }, 201);
      },
    });
    const dialog = await openNewWebhook();
    fireEvent.change(within(dialog).getByLabelText('Address of your receiver'), {
      target: { value: ' https://example.com/hook ' },
    });
    fireEvent.click(within(dialog).getByLabelText('Your balance changed'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    expect(await screen.findByTestId('webhook-secret')).toHaveTextContent('whsec_secretvalue');
    const [sent] = callsTo(fetchMock, 'POST /api/account/webhooks');
    expect(JSON.parse(String(sent.body))).toEqual({
      url: 'https://example.com/hook',
      events: ['job.succeeded', 'job.failed', 'job.cancelled', 'balance.changed'],
    });
    fireEvent.click(screen.getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByTestId('webhook-secret')).not.toBeInTheDocument());
    expect(await screen.findAllByTestId('webhook')).toHaveLength(1);
  }, 30_000);

  it('shows why an endpoint was switched off, switches it on again and replays a given-up delivery', async () => {
    let listed = [
      endpoint({ enabled: false, disabledReason: 'Switched off: every delivery failed for 24 hours.' }),
    ];
    const fetchMock = mockFetch({
      'GET /api/account/webhooks': () => ok(listed),
      'GET /api/account/webhooks/deliveries': ok([delivery()]),
      'PATCH /api/account/webhooks/e1': () => {
        listed = [endpoint()];
        return ok(listed[0]);
      },
      'POST /api/account/webhooks/deliveries/msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa/replay': ok(
        delivery({ status: 'pending', attempts: 0 }),
      ),
    });
    render(
      <AppProviders>
        <WebhooksCard />
      </AppProviders>,
    );
    expect(await screen.findByTestId('webhook-disabled-reason')).toHaveTextContent(/failed for 24 hours/);
    const rows = within(screen.getByTestId('webhook-deliveries')).getAllByRole('row');
    expect(rows[1].textContent).toContain('failed');
    expect(rows[1].textContent).toContain('500');
    fireEvent.click(screen.getByRole('switch', { name: 'Switch on https://example.com/hook' }));
    await waitFor(() => expect(callsTo(fetchMock, 'PATCH /api/account/webhooks/e1')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, 'PATCH /api/account/webhooks/e1')[0].body))).toEqual({
      enabled: true,
    });
    await waitFor(() => expect(screen.queryByTestId('webhook-disabled-reason')).not.toBeInTheDocument());
    fireEvent.click(screen.getByRole('button', { name: 'Send msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa again' }));
    await waitFor(() =>
      expect(
        callsTo(fetchMock, 'POST /api/account/webhooks/deliveries/msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa/replay'),
      ).toHaveLength(1),
    );
  }, 30_000);
});
