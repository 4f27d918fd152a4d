import { buildGenerationRequest, Messages, PromptMessages, TAG_CATEGORIES } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sessionAnswer } from '../../test/fetchMock';
import { contentItems, jobView, submitAnswer } from '../../test/jobs';
import { expectLiveToolNotices, operationsAnswer, operationsState } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';

async function open(balance: number, answers = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/operations': operationsAnswer(),
    ...answers,
  });
  const app = renderApp('/generate');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/operations')).toHaveLength(1));
  return { fetchMock, app };
}

/** The tag a chooser shows as chosen. */
const chosen = (title: string) =>
  screen.getByLabelText(title).closest('.ant-select')!.querySelector('.ant-select-selection-item')!
    .textContent;

async function choose(title: string, tag: string) {
  fireEvent.mouseDown(screen.getByLabelText(title));
  const option = await screen.findAllByTitle(tag);
  fireEvent.click(option.find((element) => element.classList.contains('ant-select-item-option'))!);
}

const generateButton = () => screen.getByRole('button', { name: /Generate/ });

describe('GeneratePage', () => {
  it('sends a logged-out visitor to the login page', async () => {
    mockFetch();
    const app = renderApp('/generate');
    await waitFor(() => expect(app.pathname()).toBe('/login'));
  });

  it("shows the generate tool's maintenance notices and follows the admins' changes live", async () => {
    await expectLiveToolNotices({
      tool: 'generate',
      otherTool: 'clone',
      text: 'Image generation is paused.',
      open: (answers) => open(10, answers),
    });
  });

  it('starts every chooser at a tag of its list, Age at 20 year old, the others at random', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    await open(5);
    for (const category of TAG_CATEGORIES) {
      const expected =
        category.key === 'age' ? '20 year old' : category.tags[Math.floor(category.tags.length / 2)];
      expect([category.title, chosen(category.title)]).toEqual([category.title, expected]);
      expect(screen.getByLabelText(category.title).closest('[data-config-key]')).toHaveAttribute(
        'data-config-key',
        category.key,
      );
    }
  });

  it('sends title and prompt built from the chosen tags, then shows the image after the countdown', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const job = jobView({ tool: 'generate', state: 'succeeded', progress: 100 });
    const items = contentItems(1, job._id);
    const { fetchMock } = await open(5, {
      'POST /api/generateImage': submitAnswer('success', { ...job, items }, items[0].url),
    });
    await choose('Age', '40-50 years old');
    await choose('Style', 'close up');
    const tags = {
      ...Object.fromEntries(TAG_CATEGORIES.map((c) => [c.key, c.tags[0]])),
      age: '40-50 years old',
      style: 'close up',
    };
    const expected = buildGenerationRequest(tags);
    expect(screen.getByTestId('generate-title')).toHaveTextContent(expected.title);

    jest.useFakeTimers();
    try {
      fireEvent.click(generateButton());
      const modal = await screen.findByTestId('job-modal');
      expect(JSON.parse(String(callsTo(fetchMock, 'POST /api/generateImage')[0].body))).toEqual({
        ...expected,
        // Kept with the job for "Edit and run".
        tags,
        author: 'alice',
      });
      expect(expected.prompt.startsWith('adult woman, 40-50 years old, ')).toBe(true);
      await within(modal).findByText('Success!');
      expect(within(modal).getByRole('img', { name: 'Generated image' })).toHaveAttribute(
        'src',
        items[0].url,
      );

      // The modal may not close during the first 5 seconds after the request.
      expect(within(modal).getByTestId('close-countdown')).toHaveTextContent('You can close this in 5 s');
      fireEvent.click(within(modal).getByText('Success!'));
      act(() => jest.advanceTimersByTime(3000));
      expect(within(modal).getByTestId('close-countdown')).toHaveTextContent('You can close this in 2 s');
      fireEvent.click(within(modal).getByText('Success!'));
      expect(screen.getByTestId('job-modal')).toBeInTheDocument();

      act(() => jest.advanceTimersByTime(2000));
      expect(within(modal).queryByTestId('close-countdown')).not.toBeInTheDocument();
      fireEvent.click(within(modal).getByText('Success!'));
      await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
    } finally {
      jest.useRealTimers();
    }
    // The profile is fetched again after the request.
    expect(callsTo(fetchMock, 'GET /api/session').length).toBeGreaterThanOrEqual(2);
  });

  it("says 'Check Later!' while the job is still running", async () => {
    const job = jobView({ tool: 'generate', state: 'queued' });
    await open(5, { 'POST /api/generateImage': submitAnswer('processing', job) });
    fireEvent.click(generateButton());
    expect(await screen.findByText('Check Later!')).toBeInTheDocument();
  });

  it('shows up front that generation is not configured and offers no Generate', async () => {
    const { fetchMock } = await open(5, {
      'GET /api/operations': operationsAnswer(operationsState({ capabilities: { generate: false } })),
    });
    expect(await screen.findByTestId('generate-not-configured')).toHaveTextContent(
      PromptMessages.notConfigured,
    );
    expect(generateButton()).toBeDisabled();
    expect(callsTo(fetchMock, 'POST /api/generateImage')).toHaveLength(0);
  });

  it('says so clearly when the server answers 503 not configured', async () => {
    await open(5, {
      'POST /api/generateImage': {
        status: 503,
        body: { message: 'error', content: PromptMessages.notConfigured },
      },
    });
    expect(screen.queryByTestId('generate-not-configured')).not.toBeInTheDocument();
    fireEvent.click(generateButton());
    expect(await screen.findByTestId('generate-not-configured')).toHaveTextContent(
      PromptMessages.notConfigured,
    );
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
    expect(generateButton()).toBeDisabled();
  });

  it('refuses without enough credits and sends nothing', async () => {
    const { fetchMock } = await open(0);
    fireEvent.click(generateButton());
    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/generateImage')).toHaveLength(0);
  });
});
