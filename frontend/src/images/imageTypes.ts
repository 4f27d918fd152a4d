/** Image types the server accepts (UPLOAD_LIMITS.imageTypes) and the extension of each. */
export const IMAGE_EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/** The file inputs' accept attribute. */
export const ACCEPTED_IMAGE_TYPES = Object.keys(IMAGE_EXTENSIONS).join(',');
