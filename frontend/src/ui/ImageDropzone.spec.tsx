import { fireEvent, render, screen } from '@testing-library/react';
import { ImageDropzone } from './ImageDropzone';

const png = new File([new Uint8Array([137, 80, 78, 71])], 'photo.png', { type: 'image/png' });
const text = new File(['hello'], 'notes.txt', { type: 'text/plain' });

function renderZone(disabled = false) {
  const onFile = jest.fn();
  render(
    <ImageDropzone text="Drop here" label="Image to test" image={null} onFile={onFile} disabled={disabled} />,
  );
  return { onFile, zone: screen.getByText('Drop here').closest('label')! };
}

describe('ImageDropzone', () => {
  it('takes a chosen file', () => {
    const { onFile } = renderZone();
    fireEvent.change(screen.getByLabelText('Image to test'), { target: { files: [png] } });
    expect(onFile).toHaveBeenCalledTimes(1);
    expect(onFile).toHaveBeenCalledWith(png);
  });

  it('takes the first dropped image of an accepted type and ignores other files', () => {
    const { onFile, zone } = renderZone();
    fireEvent.dragOver(zone, { dataTransfer: { files: [text, png] } });
    expect(zone).toHaveClass('image-dropzone-dragging');
    fireEvent.drop(zone, { dataTransfer: { files: [text, png] } });
    expect(onFile).toHaveBeenCalledTimes(1);
    expect(onFile).toHaveBeenCalledWith(png);
    expect(zone).not.toHaveClass('image-dropzone-dragging');

    fireEvent.drop(zone, { dataTransfer: { files: [text] } });
    expect(onFile).toHaveBeenCalledTimes(1);
  });

  it('takes nothing while disabled', () => {
    const { onFile, zone } = renderZone(true);
    expect(screen.getByLabelText('Image to test')).toBeDisabled();
    fireEvent.drop(zone, { dataTransfer: { files: [png] } });
    expect(onFile).not.toHaveBeenCalled();
  });
});
