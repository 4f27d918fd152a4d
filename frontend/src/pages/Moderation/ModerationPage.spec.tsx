import {
  ContentMessages,
  ModerationMessages,
  SAFETY_REASONS,
  SocketEvents,
  type HeldItem,
} from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { openSocket } from '../../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });
const QUEUE = 'GET /api/moderation/held';

function held(over: Partial<HeldItem> = {}): HeldItem {
  return {
    itemId: 'item1',
    owner: 'alice',
    jobId: 'job1',
    title: 'Portrait',
    reason: 'minor_face',
    reasonText: SAFETY_REASONS.minor_face,
    heldAt: '2026-11-28T10:00:00.000Z',
    scores: { drawing: 0.01, hentai: 0, neutral: 0.98, porn: 0.005, sexy: 0.005 },
    faces: [{ box: [10, 10, 40, 40], age: 15 }],
    ...over,
  };
}

function signIn(
  role: 'moderator' | 'support' | 'admin',
  answers: Record<string, FakeAnswer | ((init: RequestInit) => FakeAnswer)>,
  username = 'mira',
) {
  rememberAccount(username);
  return mockFetch({ 'GET /api/session': sessionAnswer({ username, role }), ...answers });
}

const cards = () => screen.queryAllByTestId('held-item');

describe('ModerationPage', () => {
  it('shows each held output with its reason in plain words, the scores and the face ages; the preview is blurred until revealed', async () => {
    signIn('moderator', { [QUEUE]: ok([held()]) });
    renderApp('/admin/moderation');

    const card = await screen.findByTestId('held-item');
    expect(within(card).getByText(SAFETY_REASONS.minor_face)).toBeInTheDocument();
    expect(within(card).getByText('minor_face')).toBeInTheDocument();
    expect(within(card).getByTestId('held-faces')).toHaveTextContent('Face 1: estimated age 15');
    expect(within(card).getByTestId('held-scores')).toHaveTextContent('Porn 0.5%');
    expect(within(card).getByTestId('held-scores')).toHaveTextContent('Neutral 98.0%');
    expect(within(card).getByText('by alice')).toBeInTheDocument();

    const preview = within(card).getByTestId('held-preview');
    expect(preview).toHaveAttribute('src', '/api/moderation/held/item1/file');
    expect(preview.style.filter).toContain('blur');
    fireEvent.click(within(card).getByRole('button', { name: /Reveal picture/ }));
    expect(preview.style.filter).toBe('none');
    fireEvent.click(within(card).getByRole('button', { name: /Blur again/ }));
    expect(preview.style.filter).toContain('blur');
  });

  it('asks for a reason before release or remove, sends it, and drops the decided output', async () => {
    const fetchMock = signIn('moderator', {
      [QUEUE]: ok([held(), held({ itemId: 'item2', title: 'Second' })]),
      'POST /api/moderation/held/item1/remove': ok({
        itemId: 'item1',
        decision: 'removed',
        heldFor: 'minor_face',
        note: 'Looks under 18, removed',
        refunded: 1,
      }),
    });
    renderApp('/admin/moderation');
    await waitFor(() => expect(cards()).toHaveLength(2));
    const [first] = cards();
    const remove = within(first).getByRole('button', { name: 'Remove' });
    const release = within(first).getByRole('button', { name: 'Release' });
    expect(remove).toBeDisabled();
    expect(release).toBeDisabled();

    const reason = within(first).getByLabelText('Reason for the decision');
    fireEvent.change(reason, { target: { value: 'too short' } });
    expect(within(first).getByText(ModerationMessages.reasonRequired)).toBeInTheDocument();
    expect(remove).toBeDisabled();
    fireEvent.change(reason, { target: { value: '  Looks under 18, removed  ' } });
    expect(remove).toBeEnabled();
    fireEvent.click(remove);

    await waitFor(() => expect(cards()).toHaveLength(1));
    const [sent] = callsTo(fetchMock, 'POST /api/moderation/held/item1/remove');
    expect(JSON.parse(String(sent.body))).toEqual({ reason: 'Looks under 18, removed' });
    expect(await screen.findByText('Removed: alice is told why')).toBeInTheDocument();
    expect(screen.getByText('1 credit refunded to alice')).toBeInTheDocument();
    expect(within(cards()[0]).getByText('Second')).toBeInTheDocument();
  });

  it('says so when another moderator decided first, and drops the output', async () => {
    signIn('admin', {
      [QUEUE]: ok([held()]),
      'POST /api/moderation/held/item1/release': {
        status: 409,
        body: { message: 'error', content: ContentMessages.alreadyDecided },
      },
    });
    renderApp('/admin/moderation');
    const card = await screen.findByTestId('held-item');
    fireEvent.change(within(card).getByLabelText('Reason for the decision'), {
      target: { value: 'Adult on a second look' },
    });
    fireEvent.click(within(card).getByRole('button', { name: 'Release' }));
    expect(await screen.findByText(ContentMessages.alreadyDecided)).toBeInTheDocument();
    await waitFor(() => expect(cards()).toHaveLength(0));
  });

  it('follows the queue live: a change pushed by the server reads it again', async () => {
    let queue = [held()];
    const fetchMock = signIn('moderator', { [QUEUE]: () => ok(queue) });
    renderApp('/admin/moderation');
    await waitFor(() => expect(cards()).toHaveLength(1));
    await waitFor(() =>
      expect(openSocket()?.listenerCount(SocketEvents.moderationQueueChanged)).toBeGreaterThan(0),
    );

    queue = [held(), held({ itemId: 'item2', title: 'Just held' })];
    act(() =>
      openSocket()!.serverEmit(SocketEvents.moderationQueueChanged, { itemId: 'item2', action: 'held' }),
    );
    expect(await screen.findByText('Just held')).toBeInTheDocument();
    queue = [];
    act(() =>
      openSocket()!.serverEmit(SocketEvents.moderationQueueChanged, { itemId: 'item1', action: 'released' }),
    );
    await waitFor(() => expect(cards()).toHaveLength(0));
    expect(screen.getByText('Nothing is waiting for review')).toBeInTheDocument();
    expect(callsTo(fetchMock, QUEUE).length).toBeGreaterThanOrEqual(3);
  });

  it("shows a moderator's own held output without its picture or any decision", async () => {
    signIn('moderator', { [QUEUE]: ok([held({ owner: 'Mira' })]) });
    renderApp('/admin/moderation');
    const card = await screen.findByTestId('held-item');
    expect(within(card).getByText(ModerationMessages.ownItem)).toBeInTheDocument();
    expect(within(card).queryByTestId('held-preview')).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Release' })).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
  });

  it('is Not Found for support staff, who do not moderate', async () => {
    const fetchMock = signIn('support', {});
    renderApp('/admin/moderation');
    expect(await screen.findByText(/not found/i)).toBeInTheDocument();
    expect(callsTo(fetchMock, QUEUE)).toHaveLength(0);
  });
});
