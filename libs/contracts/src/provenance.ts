/** The public verify page's answer (POST /api/verify): what a file says about its origin. */
export type ManifestVerdict = 'none' | 'valid' | 'tampered' | 'foreign';
export type WatermarkVerdict = 'ours' | 'unknown' | 'none';

export interface VerifyResult {
  kind: 'image' | 'video';
  manifest: {
    /** valid: signed by this studio and intact; tampered: changed after signing; foreign: signed by someone else. */
    state: ManifestVerdict;
    /** The tool named in the manifest (ours or foreign), its action and time. */
    tool?: string;
    action?: string;
    when?: string;
    generator?: string;
    /** The manifest declares media made by a trained model (IPTC digital source type). */
    aiGenerated?: boolean;
  };
  watermark: {
    state: WatermarkVerdict;
    /** For one of ours: the tool and the time the output was made. */
    tool?: string;
    createdAt?: string;
  };
  /** Admins only, for a watermark of ours: the job and its owner (each look-up is audited). */
  admin?: { jobId: string; itemId: string; owner: { id: string; username: string } };
}

export const VerifyMessages = {
  fileRequired: 'Choose an image or a video to check',
  notMedia: 'The file is not a JPEG, PNG or WebP image or an MP4, MOV or WebM video',
  tooLarge: 'The file is too large to check',
  imageTooLarge:
    'The image has too many pixels to check (at most 4096x4096, the largest output this studio makes)',
  videoFrameTooLarge: 'The video’s frames are too large to check (at most 3840x2160)',
  unavailable: 'Checking files is not available right now',
} as const;

/** Tools whose outputs change a real person's picture: labelled "altered", not only "AI-generated". */
export const ALTERING_TOOLS = ['faceSwap', 'faceSwapVideo'] as const;
