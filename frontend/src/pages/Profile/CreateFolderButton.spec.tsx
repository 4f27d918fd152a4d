import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AppProviders } from '../../AppProviders';
import { mockFetch } from '../../test/fetchMock';
import { CreateFolderButton } from './CreateFolderButton';

describe('CreateFolderButton', () => {
  it('puts the cursor in the folder name field when the modal opens', async () => {
    mockFetch();
    render(
      <AppProviders>
        <CreateFolderButton onCreated={() => undefined} />
      </AppProviders>,
    );
    fireEvent.click(screen.getByRole('button', { name: /Create Folder/ }));
    const field = await screen.findByLabelText('Folder Name');
    await waitFor(() => expect(field).toHaveFocus());
  });
});
