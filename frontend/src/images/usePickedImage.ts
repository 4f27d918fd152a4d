import { JobMessages } from '@studio/contracts';
import { useCallback, useRef, useState } from 'react';
import { useToast } from '../ui/toast';
import { scaleImage, type PickedImage } from './scaleImage';

/** One image chosen by the user, scaled in the browser to fit `max` (1024) px per side. */
export function usePickedImage(max?: number) {
  const toast = useToast();
  const [image, setImage] = useState<PickedImage | null>(null);
  const [reading, setReading] = useState(false);
  const latest = useRef(0);

  const pick = useCallback(
    async (file: File) => {
      const current = ++latest.current;
      setReading(true);
      try {
        const picked = await scaleImage(file, max);
        if (current === latest.current) setImage(picked);
      } catch {
        if (current === latest.current) toast.error(JobMessages.badImage);
      } finally {
        if (current === latest.current) setReading(false);
      }
    },
    [toast, max],
  );

  const clear = useCallback(() => {
    latest.current += 1;
    setImage(null);
    setReading(false);
  }, []);

  return { image, reading, pick, clear };
}
