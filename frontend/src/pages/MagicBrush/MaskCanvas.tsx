import type { PickedImage } from '../../images/scaleImage';
import { forwardRef, useEffect, useImperativeHandle, useRef, useState, type PointerEvent } from 'react';

export interface MaskCanvasHandle {
  /** Removes everything painted. */
  clear(): void;
  /** The mask as a PNG of the image's size: white where painted, transparent elsewhere. */
  toPng(): Promise<Blob | null>;
}

interface MaskCanvasProps {
  image: PickedImage;
  /** Brush radius in image pixels (5..50). */
  brushSize: number;
  /** Display scale of the image and its mask (0.33..1). */
  zoom: number;
  onPaintedChange(painted: boolean): void;
  /** A mask to start from ("Edit and run"): white where painted, as the server stored it. */
  initialMask?: Blob | null;
}

interface Point {
  x: number;
  y: number;
}

/**
 * The Magic Brush drawing surface: the image with a canvas of the same pixel size on top. Strokes
 * are opaque white on the canvas (that is the uploaded mask); the canvas itself is shown
 * semi-transparent, so the painted area reads as a white veil over the image. Mouse, pen and touch
 * all draw through pointer events.
 */
export const MaskCanvas = forwardRef<MaskCanvasHandle, MaskCanvasProps>(function MaskCanvas(
  { image, brushSize, zoom, onPaintedChange, initialMask },
  ref,
) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawing = useRef(false);
  const last = useRef<Point | null>(null);
  const painted = useRef(false);
  const [cursor, setCursor] = useState<Point | null>(null);

  const context = () => canvas.current?.getContext('2d') ?? null;

  const markPainted = (value: boolean) => {
    if (painted.current === value) return;
    painted.current = value;
    onPaintedChange(value);
  };

  useImperativeHandle(ref, () => ({
    clear() {
      const surface = canvas.current;
      context()?.clearRect(0, 0, surface?.width ?? 0, surface?.height ?? 0);
      markPainted(false);
    },
    toPng() {
      const surface = canvas.current;
      if (!surface) return Promise.resolve(null);
      return new Promise((resolve) => surface.toBlob(resolve, 'image/png'));
    },
  }));

  // The stored mask drawn in as if painted: opaque white where it is light and opaque, clear elsewhere.
  useEffect(() => {
    if (!initialMask) return;
    let current = true;
    void createImageBitmap(initialMask)
      .then((bitmap) => {
        const surface = canvas.current;
        const ctx = context();
        if (!current || !surface || !ctx) return;
        const scratch = document.createElement('canvas');
        scratch.width = surface.width;
        scratch.height = surface.height;
        const reader = scratch.getContext('2d', { willReadFrequently: true });
        if (!reader) return;
        reader.drawImage(bitmap, 0, 0, surface.width, surface.height);
        const pixels = reader.getImageData(0, 0, surface.width, surface.height);
        const data = pixels.data;
        let any = false;
        for (let i = 0; i < data.length; i += 4) {
          const painted = data[i + 3] >= 128 && data[i] >= 128;
          any ||= painted;
          data[i] = data[i + 1] = data[i + 2] = data[i + 3] = painted ? 255 : 0;
        }
        ctx.putImageData(pixels, 0, 0);
        markPainted(any);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
    // Drawn once per mask; markPainted reads only refs and the latest callback.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [initialMask]);

  /** Where the pointer is, in image pixels. */
  const pointOf = (event: PointerEvent<HTMLCanvasElement>): Point => {
    const surface = event.currentTarget;
    const rect = surface.getBoundingClientRect();
    const scaleX = rect.width > 0 ? surface.width / rect.width : 1;
    const scaleY = rect.height > 0 ? surface.height / rect.height : 1;
    return {
      x: ((event.clientX || 0) - rect.left) * scaleX,
      y: ((event.clientY || 0) - rect.top) * scaleY,
    };
  };

  const dot = (at: Point) => {
    const ctx = context();
    if (ctx) {
      ctx.fillStyle = '#ffffff';
      ctx.beginPath();
      ctx.arc(at.x, at.y, brushSize, 0, Math.PI * 2);
      ctx.fill();
    }
    markPainted(true);
  };

  const line = (from: Point, to: Point) => {
    const ctx = context();
    if (ctx) {
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = brushSize * 2;
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      ctx.beginPath();
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(to.x, to.y);
      ctx.stroke();
    }
    markPainted(true);
  };

  const onPointerDown = (event: PointerEvent<HTMLCanvasElement>) => {
    if (event.button !== undefined && event.button > 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    drawing.current = true;
    const at = pointOf(event);
    last.current = at;
    dot(at);
  };

  const onPointerMove = (event: PointerEvent<HTMLCanvasElement>) => {
    const at = pointOf(event);
    setCursor(at);
    if (!drawing.current) return;
    if (last.current) line(last.current, at);
    last.current = at;
  };

  const stop = () => {
    drawing.current = false;
    last.current = null;
  };

  const size = brushSize * 2 * zoom;
  return (
    <div
      className="mask-stage"
      style={{ width: Math.round(image.width * zoom), height: Math.round(image.height * zoom) }}
    >
      <img className="mask-image" src={image.dataUrl} alt="Image to inpaint" draggable={false} />
      <canvas
        ref={canvas}
        className="mask-canvas"
        width={image.width}
        height={image.height}
        aria-label="Mask"
        data-testid="mask-canvas"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={stop}
        onPointerCancel={stop}
        onPointerLeave={() => setCursor(null)}
      />
      {cursor && (
        <div
          className="mask-cursor"
          aria-hidden
          style={{
            width: size,
            height: size,
            left: cursor.x * zoom - size / 2,
            top: cursor.y * zoom - size / 2,
          }}
        />
      )}
    </div>
  );
});
