"""Judge of `npm run bench -- provenance` (run with the provenance venv's Python).

Reads a JSON list of cases from argv[1] and writes figures as JSON to argv[2]:
  {"kind": "image"|"video", "tool", "marked": path, "plain": path, "markId": int}   marked outputs
  {"kind": "image"|"video", "tool": "unmarked", "plain": path}                        false-positive set
For each marked output: PSNR (RGB, marked vs unmarked), and whether the watermark detector finds
the right id after each transformation (images: none, JPEG q75, 50% downscale, 10% crop, PNG ->
JPEG, and all of them together; videos: none, H.264 re-encode at a lower bitrate). For each unmarked
file and its re-encodes: whether the detector claims any mark (a false positive).
The transformations use Pillow and ffmpeg, not the code that marks.
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'libs', 'inference', 'src', 'watermark'))
import watermark as wm  # noqa: E402
from provenance_worker import Studio  # noqa: E402,F401  (imported for its ffmpeg helpers below)
import provenance_worker as pw  # noqa: E402


def rgb_of(path_or_bytes):
    src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    with Image.open(src) as img:
        return np.asarray(img.convert('RGB'))


def jpeg(rgb, quality):
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, 'JPEG', quality=quality)
    return rgb_of(out.getvalue())


def half(rgb):
    h, w = rgb.shape[:2]
    return np.asarray(Image.fromarray(rgb).resize((max(1, w // 2), max(1, h // 2)), Image.BICUBIC))


def crop10(rgb):
    """10% of the area cut away: 5.1% off each side."""
    h, w = rgb.shape[:2]
    dy, dx = int(round(h * 0.0257)), int(round(w * 0.0257))
    # off two sides only, so the tile grid's origin moves as a real crop moves it
    return rgb[2 * dy:, 2 * dx:]


IMAGE_TRANSFORMS = {
    'none': lambda rgb: rgb,
    'jpeg_q75': lambda rgb: jpeg(rgb, 75),
    'downscale_50': half,
    'crop_10': crop10,
    'png_to_jpeg': lambda rgb: jpeg(rgb, 90),  # Pillow's usual "save as JPEG" of a PNG
    'all_together': lambda rgb: jpeg(crop10(half(rgb)), 75),
}


def detect_image(rgb):
    return wm.detect_rgb(rgb)


def detect_video(path):
    studio = pw.Studio.__new__(pw.Studio)  # only its frame reader, no signer
    r = studio._video_whitened(path)
    return {'found': False, 'id': None} if r is None else wm.detect_whitened(r)


def reencode(path, out, bitrate):
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', path, '-c:v', 'libx264', '-b:v', bitrate,
                    '-an', out], check=True)


def main():
    cases = json.load(open(sys.argv[1]))
    results = {'images': {}, 'videos': {}, 'falsePositives': {'images': 0, 'imageChecks': 0,
                                                            'videos': 0, 'videoChecks': 0},
               'psnr': {}, 'detectSeconds': []}
    tmp = tempfile.mkdtemp(prefix='prov-judge-')
    for case in cases:
        if case['tool'] == 'unmarked':
            fp = results['falsePositives']
            if case['kind'] == 'image':
                rgb = rgb_of(case['plain'])
                for name in ('none', 'jpeg_q75', 'downscale_50', 'crop_10'):
                    fp['imageChecks'] += 1
                    if detect_image(IMAGE_TRANSFORMS[name](rgb))['found']:
                        fp['images'] += 1
            else:
                low = os.path.join(tmp, 'fp.mp4')
                reencode(case['plain'], low, '400k')
                for path in (case['plain'], low):
                    fp['videoChecks'] += 1
                    if detect_video(path)['found']:
                        fp['videos'] += 1
            continue
        tool = case['tool']
        if case['kind'] == 'image':
            marked, plain = rgb_of(case['marked']), rgb_of(case['plain'])
            results['psnr'].setdefault(tool, []).append(wm.psnr(plain, marked))
            per = results['images'].setdefault(tool, {})
            for name, transform in IMAGE_TRANSFORMS.items():
                t = time.perf_counter()
                found = detect_image(transform(marked))
                results['detectSeconds'].append(time.perf_counter() - t)
                ok = found['found'] and found['id'] == case['markId']
                per.setdefault(name, [0, 0])
                per[name][0] += int(ok)
                per[name][1] += 1
        else:
            per = results['videos'].setdefault(tool, {})
            low = os.path.join(tmp, 'low.mp4')
            reencode(case['marked'], low, case.get('lowBitrate', '300k'))
            for name, path in (('none', case['marked']), ('h264_lower_bitrate', low)):
                found = detect_video(path)
                ok = found['found'] and found['id'] == case['markId']
                per.setdefault(name, [0, 0])
                per[name][0] += int(ok)
                per[name][1] += 1
            results['psnr'].setdefault(tool, []).append(case.get('psnr') or 0)
    json.dump(results, open(sys.argv[2], 'w'))


if __name__ == '__main__':
    main()
