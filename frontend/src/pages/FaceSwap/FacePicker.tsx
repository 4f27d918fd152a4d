import type { FaceSwapImageReport } from '@studio/contracts';
import './FacePicker.css';

interface FacePickerProps {
  /** 'Source' or 'Target': names the buttons ("Target face 2"). */
  side: 'Source' | 'Target';
  imageUrl: string;
  report: FaceSwapImageReport;
  chosen: readonly number[];
  onPick(index: number): void;
}

/**
 * The image with a box on every face the engine found; a box is a button that picks the face
 * (pressed = chosen). Boxes are placed in percentages of the analysed image, so they follow the
 * picture at any displayed width (the picture never exceeds its column).
 */
export function FacePicker({ side, imageUrl, report, chosen, onPick }: FacePickerProps) {
  return (
    <div className="face-picker" data-testid={`face-picker-${side.toLowerCase()}`}>
      <img src={imageUrl} alt={`${side} image with the faces found`} />
      {report.faces.map((face) => {
        const [x, y, w, h] = face.box;
        const picked = chosen.includes(face.index);
        return (
          <button
            key={face.index}
            type="button"
            className={picked ? 'face-box face-box-chosen' : 'face-box'}
            aria-pressed={picked}
            aria-label={`${side} face ${face.index + 1}`}
            title={`Face ${face.index + 1} · turned ${Math.round(Math.abs(face.yaw))}°`}
            style={{
              left: `${(x / report.width) * 100}%`,
              top: `${(y / report.height) * 100}%`,
              width: `${(w / report.width) * 100}%`,
              height: `${(h / report.height) * 100}%`,
            }}
            onClick={() => onPick(face.index)}
          >
            <span className="face-box-label">{face.index + 1}</span>
          </button>
        );
      })}
    </div>
  );
}
