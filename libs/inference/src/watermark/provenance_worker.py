"""The studio's provenance child process: marks outputs and inspects files.

Speaks JSON lines on stdin/stdout (one request, one answer, in order). Files are passed by path.
  {"id", "op": "mark", "input", "output", "format": "png|jpeg|webp|mp4", "markId", "manifest": {...}}
  {"id", "op": "inspect", "input", "kind": "image|video"}
  {"id", "op": "read", "input", "format"}              (the manifest store as c2pa reads it)
Marking = invisible watermark in the pixels (watermark.py), then a C2PA manifest signed with the
configured certificate chain and key (c2pa-python, the c2pa-rs library's bindings).
Started with: provenance_worker.py CERT_CHAIN_PEM PRIVATE_KEY_PEM [ALG] [MAX_PIXELS] [MAX_FRAME_PIXELS]
  [MEMORY_MB] [--c2pa-defaults] [--as-before-54]
Budgets: an image over MAX_PIXELS or a video frame over MAX_FRAME_PIXELS is refused from its header,
before any decoding; the process (and the ffmpeg it starts, which inherit the limit) cannot map more
than MEMORY_MB, so a reader that misjudges a file fails with MemoryError instead of taking the
machine's memory.

The manifest holds what C2PA requires and nothing heavier (docs/provenance.md): no claim thumbnail
(not required by the specification; c2pa-rs's default is a JPEG of the output scaled to 1024 px,
which made a clone's manifest up to 1.2 MB), no trust anchor in the certificate chain (the
specification says it should not be there: validators hold their own). --c2pa-defaults signs as
before issue 39 (the library's thumbnail, the chain as configured): the provenance bench's baseline.
--as-before-54 marks an image as before issue 54 (PNG at zlib level 6, the PSNR in float64 copies,
OpenBLAS's default threads):
the marking bench's baseline. A mark's answer has its steps' times (decode, embed, psnr, encode,
sign: c2pa's manifest, signature and file; a video's watermark as one step, `video`).
"""

from __future__ import annotations

import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

# One BLAS thread, set before numpy loads OpenBLAS: the watermark's one matrix product (its tile) is
# tiny, and OpenBLAS's helper threads, woken for it and spinning after, cost more than the whole
# embedding (a 256 px clone: 9.6 against 2.9 ms of CPU; the marking bench, whose baseline keeps them)
if '--as-before-54' not in sys.argv:
    os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')

import cv2
import numpy as np
from PIL import Image

import c2pa
from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives.serialization import Encoding
import watermark as wm

MIME = {'png': 'image/png', 'jpeg': 'image/jpeg', 'webp': 'image/webp', 'mp4': 'video/mp4'}
FORMAT_OF_PIL = {'PNG': 'png', 'JPEG': 'jpeg', 'WEBP': 'webp'}
VIDEO_SAMPLE_FRAMES = 48
BUDGET = {'pixels': 40_000_000, 'frame_pixels': 8_294_400}


class OverBudget(ValueError):
    """A file whose header declares more pixels than the budget: refused before decoding."""


def _open_image(path):
    img = Image.open(path)  # reads the header only
    if img.width * img.height > BUDGET['pixels']:
        img.close()
        raise OverBudget(f'{img.width}x{img.height} is over the pixel budget')
    return img


class Studio:
    def __init__(self, chain: bytes, key: bytes, alg: str, c2pa_defaults: bool = False,
                 as_before: bool = False):
        self.as_before = as_before
        chain = chain if c2pa_defaults else signing_chain(chain)
        self.signer = c2pa.Signer.from_info(c2pa.C2paSignerInfo(alg.encode(), chain, key, None))
        self.context = c2pa.Context(settings=c2pa.Settings.from_dict(
            {'builder': {'thumbnail': {'enabled': c2pa_defaults}}}))
        self.identity = self._own_identity()

    def _own_identity(self):
        """Our signer as c2pa reports it: a tiny image signed and read back at start."""
        src = io.BytesIO()
        Image.new('RGB', (16, 16)).save(src, 'PNG')
        src.seek(0)
        dst = io.BytesIO()
        with c2pa.Builder({'claim_generator_info': [{'name': 'identity check'}],
                           'assertions': [_actions('c2pa.created', wm_source(), 'identity', None)]},
                          context=self.context) as b:
            b.sign(self.signer, 'image/png', src, dst)
        dst.seek(0)
        info = _active(json.loads(c2pa.Reader('image/png', dst).json()))['signature_info']
        return (info.get('issuer'), info.get('cert_serial_number'))

    # ---- marking -------------------------------------------------------------------------
    def mark(self, req):
        fmt = req['format']
        # ms per step, wall and this process's CPU (the marking bench: where a marked output's time
        # goes; on a busy machine the wall time is mostly waiting for a core)
        steps, cpu = {}, {}
        t0, c0 = time.perf_counter(), time.process_time()
        if fmt == 'mp4':
            marked_path = req['output'] + '.wm.mp4'
            quality = self._mark_video(req['input'], marked_path, int(req['markId']))
            source = open(marked_path, 'rb')
            steps['video'], cpu['video'] = _ms(t0), _ms(c0, time.process_time())
        else:
            data, quality = self._mark_image(req['input'], fmt, int(req['markId']), steps, cpu)
            source = io.BytesIO(data)
            marked_path = None
        t1, c1 = time.perf_counter(), time.process_time()
        try:
            with c2pa.Builder(req['manifest'], context=self.context) as builder, \
                    open(req['output'] + '.part', 'wb') as dst:
                store = builder.sign(self.signer, MIME[fmt], source, dst)
        finally:
            source.close()
            if marked_path:
                os.unlink(marked_path)
        os.replace(req['output'] + '.part', req['output'])
        t2 = time.perf_counter()
        steps['sign'], cpu['sign'] = _ms(t1, t2), _ms(c1, time.process_time())
        # identical pixels (a tiny flat picture the mark cannot change) measure infinite: JSON has
        # no Infinity, so it is sent as null (no measure), never as a line the caller cannot parse
        return {'psnr': quality if math.isfinite(quality) else None, 'watermarkMs': _ms(t0, t1),
                'signMs': steps['sign'], 'manifestBytes': len(store), 'steps': steps,
                'cpu': cpu}

    def _mark_image(self, path, fmt, mark_id, steps, cpu):
        t = [(time.perf_counter(), time.process_time())]
        with _open_image(path) as img:
            img.load()
            info = dict(img.info)
            mode = 'RGBA' if img.mode in ('RGBA', 'LA', 'PA') or 'transparency' in info else 'RGB'
            rgb = np.asarray(img.convert(mode))
        t.append((time.perf_counter(), time.process_time()))
        marked = wm.embed_rgb(rgb, mark_id)
        t.append((time.perf_counter(), time.process_time()))
        quality = wm.psnr(rgb[..., :3], marked[..., :3]) if self.as_before else _psnr(rgb, marked)
        t.append((time.perf_counter(), time.process_time()))
        out = io.BytesIO()
        keep = {k: info[k] for k in ('exif', 'xmp', 'icc_profile') if info.get(k)}
        image = Image.fromarray(marked)
        if fmt == 'png':
            image.save(out, 'PNG', **_png_settings(mode, self.as_before), **keep)
        elif fmt == 'jpeg':
            # near-lossless, so the marked file stays within the PSNR budget of the watermark alone
            image.convert('RGB').save(out, 'JPEG', quality=97, subsampling=0, **keep)
        else:
            image.save(out, 'WEBP', quality=95, **keep)
        t.append((time.perf_counter(), time.process_time()))
        for i, step in enumerate(('decode', 'embed', 'psnr', 'encode')):
            steps[step], cpu[step] = _ms(t[i][0], t[i + 1][0]), _ms(t[i][1], t[i + 1][1])
        return out.getvalue(), round(quality, 2)

    def _mark_video(self, path, out_path, mark_id):
        w, h, rate, audio = _probe(path)
        tile = wm.tile_for(mark_id)
        size = w * h * 3 // 2
        dec = subprocess.Popen(['ffmpeg', '-v', 'error', '-i', path, '-map', '0:v:0', '-f', 'rawvideo',
                                '-pix_fmt', 'yuv420p', 'pipe:1'], stdout=subprocess.PIPE)
        enc_args = ['ffmpeg', '-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s',
                    f'{w}x{h}', '-framerate', rate, '-i', 'pipe:0', '-i', path, '-map', '0:v:0']
        if audio:
            enc_args += ['-map', '1:a:0', '-c:a', 'copy']
        enc_args += ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p',
                     '-movflags', '+faststart', out_path]
        enc = subprocess.Popen(enc_args, stdin=subprocess.PIPE)
        worst = float('inf')
        try:
            while True:
                frame = dec.stdout.read(size)
                if len(frame) < size:
                    break
                buf = bytearray(frame)
                y = np.frombuffer(buf, np.uint8, w * h).reshape(h, w)
                marked = wm.embed_luma(y, mark_id, tile)
                worst = min(worst, wm.psnr(y, marked))
                buf[: w * h] = marked.tobytes()
                enc.stdin.write(buf)
        finally:
            enc.stdin.close()
            dec.stdout.close()
        if dec.wait() != 0 or enc.wait() != 0:
            raise RuntimeError('ffmpeg could not re-encode the video')
        return round(worst, 2) if worst != float('inf') else None

    # ---- inspecting ----------------------------------------------------------------------
    def inspect(self, req):
        kind = req.get('kind', 'image')
        mime = req.get('mime')
        return {'manifest': self.read_manifest(req['input'], mime),
                'watermark': self._detect(req['input'], kind)}

    def read_manifest(self, path, mime=None):
        try:
            with open(path, 'rb') as f:
                reader = c2pa.Reader(mime, f) if mime else c2pa.Reader(path)
                store = json.loads(reader.json())
                state = reader.get_validation_state()
        except c2pa.C2paError as err:
            text = str(err)
            if 'ManifestNotFound' in text or 'JumbfNotFound' in text or 'not found' in text.lower():
                return {'state': 'none'}
            # a manifest is there but cannot be read: damaged
            return {'state': 'tampered', 'failures': [text[:200]]}
        active = _active(store)
        if not active:
            return {'state': 'none'}
        failures = [s.get('code') for s in store.get('validation_status') or []
                    if s.get('code') != 'signingCredential.untrusted']
        sig = active.get('signature_info') or {}
        ours = (sig.get('issuer'), sig.get('cert_serial_number')) == self.identity
        actions = _actions_of(active)
        main = next((a for a in actions if a.get('action') in ('c2pa.created', 'c2pa.edited')), {})
        summary = {
            'ours': ours,
            'validationState': state,
            'failures': failures,
            'action': main.get('action'),
            'digitalSourceType': main.get('digitalSourceType'),
            'when': main.get('when'),
            'tool': (main.get('softwareAgent') or {}).get('name'),
            'generator': ((active.get('claim_generator_info') or [{}])[0]).get('name'),
            'signer': {'issuer': sig.get('issuer'), 'commonName': sig.get('common_name')},
        }
        if state == 'Invalid' or failures:
            summary['state'] = 'tampered'
        else:
            summary['state'] = 'valid' if ours else 'foreign'
        return summary

    def _detect(self, path, kind):
        # Pixels that cannot be decoded (a file changed after it was made: its manifest then reads
        # tampered) carry no readable watermark: that is an answer, not a failure of the request.
        try:
            if kind == 'video':
                r = self._video_whitened(path)
                if r is None:
                    return {'found': False}
            else:
                with _open_image(path) as img:
                    img.draft('RGB', (img.width, img.height))
                    # only the window detection reads, converted (the decoded file is not copied)
                    h, w = img.height, img.width
                    side = wm.DETECT_WINDOW
                    top, left = max(0, (h - side) // 2), max(0, (w - side) // 2)
                    window = img.crop((left, top, min(w, left + side), min(h, top + side)))
                    rgb = np.asarray(window.convert('RGB'))
                r = wm.whiten(wm.luma_of(rgb))
        except OverBudget:
            raise
        except (OSError, ValueError, SyntaxError, subprocess.CalledProcessError, StopIteration):
            return {'found': False, 'unreadable': True}
        found = wm.detect_whitened(r)
        return {'found': bool(found['found']), 'id': found['id'], 'sync': round(found['sync'], 2)}

    def _video_whitened(self, path):
        w, h, _, _ = _probe(path)
        size = w * h * 3 // 2
        dec = subprocess.Popen(['ffmpeg', '-v', 'error', '-i', path, '-map', '0:v:0', '-frames:v',
                                str(VIDEO_SAMPLE_FRAMES), '-f', 'rawvideo', '-pix_fmt', 'yuv420p',
                                'pipe:1'], stdout=subprocess.PIPE)
        acc, n = None, 0
        try:
            while True:
                frame = dec.stdout.read(size)
                if len(frame) < size:
                    break
                y = wm.detection_window(np.frombuffer(frame, np.uint8, w * h).reshape(h, w))
                r = wm.whiten(y.astype(np.float32))
                acc = r if acc is None else acc + r
                n += 1
        finally:
            dec.stdout.close()
            dec.wait()
        return None if acc is None else acc / n


def _png_settings(mode, as_before=False):
    """zlib settings for a marked PNG: 3-5 times faster than level 6, within a few % of its size.

    zlib level 6 spent 4-6 times the clone engine's own time (330 ms for a 1 MP clone). RGB: the
    run-length strategy on PNG's filtered rows is as fast as level 1 and as small as level 6 or
    smaller (super resolution 1 MP: 682 KB against 733 KB; level 1: 886 KB). With an alpha channel
    the alpha bytes break every run (a clone, RGBA: +35 %), so level 1 (+8 %). The marking bench.
    """
    if as_before:
        return {'compress_level': 6}
    if mode == 'RGBA':
        return {'compress_level': 1}
    return {'compress_level': 6, 'compress_type': zlib.Z_RLE}


def _ms(start, end=None):
    return round(((end if end is not None else time.perf_counter()) - start) * 1000, 2)


def _psnr(rgb, marked):
    """wm.psnr of the colour channels, summed by OpenCV on the 8-bit planes (no float64 copies)."""
    a, b = rgb[..., :3], marked[..., :3]
    if rgb.shape[-1] != 3:
        a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    mse = cv2.norm(a, b, cv2.NORM_L2SQR) / a.size
    return float('inf') if mse == 0 else float(10 * math.log10(255.0 ** 2 / mse))


def signing_chain(pem: bytes) -> bytes:
    """The configured chain without its trust anchor: the signer, then the intermediates.

    C2PA 2.2 (x5chain): the signer's certificate and every intermediate shall be included, the
    trust anchor's (root) certificate should not; a validator has its own anchors. A self-signed
    certificate after the signer's is the anchor of a chain pasted whole.
    """
    certs = x509.load_pem_x509_certificates(pem)
    kept = [certs[0]] + [c for c in certs[1:] if not _self_signed(c)]
    return b''.join(c.public_bytes(Encoding.PEM) for c in kept)


def _self_signed(cert) -> bool:
    if cert.issuer != cert.subject:
        return False
    try:
        cert.verify_directly_issued_by(cert)
        return True
    except (InvalidSignature, UnsupportedAlgorithm, ValueError, TypeError):
        return False


def _probe(path):
    out = subprocess.run(['ffprobe', '-v', 'error', '-show_entries',
                          'stream=codec_type,width,height,r_frame_rate', '-of', 'json', path],
                         capture_output=True, check=True).stdout
    streams = json.loads(out)['streams']
    video = next(s for s in streams if s['codec_type'] == 'video')
    audio = any(s['codec_type'] == 'audio' for s in streams)
    w, h = int(video['width']), int(video['height'])
    if w * h > BUDGET['frame_pixels']:
        raise OverBudget(f'{w}x{h} frames are over the pixel budget')
    return w, h, video.get('r_frame_rate', '25/1'), audio


def _active(store):
    label = store.get('active_manifest')
    return (store.get('manifests') or {}).get(label) if label else None


def _actions_of(manifest):
    for a in manifest.get('assertions') or []:
        if a.get('label', '').startswith('c2pa.actions'):
            return a.get('data', {}).get('actions', [])
    return []


def wm_source():
    return 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia'


def _actions(action, source, tool, when):
    entry = {'action': action, 'digitalSourceType': source, 'softwareAgent': {'name': tool}}
    if when:
        entry['when'] = when
    return {'label': 'c2pa.actions.v2', 'data': {'actions': [entry]}}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    chain = open(args[0], 'rb').read()
    key = open(args[1], 'rb').read()
    alg = args[2] if len(args) > 2 else 'es256'
    if len(args) > 3:
        BUDGET['pixels'] = int(args[3])
        Image.MAX_IMAGE_PIXELS = BUDGET['pixels']
    if len(args) > 4:
        BUDGET['frame_pixels'] = int(args[4])
    if len(args) > 5:
        # address space, inherited by the ffmpeg processes it starts (each gets its own)
        ceiling = int(args[5]) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    studio = Studio(chain, key, alg, c2pa_defaults='--c2pa-defaults' in sys.argv,
                    as_before='--as-before-54' in sys.argv)
    out = sys.stdout
    out.write(json.dumps({'ready': True}) + '\n')
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            if req['op'] == 'mark':
                result = studio.mark(req)
            elif req['op'] == 'inspect':
                result = studio.inspect(req)
            elif req['op'] == 'read':
                result = studio.read_manifest(req['input'], req.get('mime'))
            else:
                raise ValueError(f"unknown op {req['op']}")
            answer = {'id': req.get('id'), 'ok': True, 'result': result}
        except OverBudget as err:
            answer = {'id': req.get('id'), 'ok': False, 'overBudget': True, 'error': str(err)}
        except Exception as err:  # the caller decides; the process stays up for the next request
            answer = {'id': req.get('id'), 'ok': False, 'error': f'{type(err).__name__}: {err}',
                      'trace': traceback.format_exc(limit=3)}
        try:
            line = json.dumps(answer, allow_nan=False)
        except ValueError as err:  # a non-finite number somewhere: a clear error, never bad JSON
            line = json.dumps({'id': req.get('id'), 'ok': False, 'error': f'ValueError: {err}'})
        out.write(line + '\n')
        out.flush()


if __name__ == '__main__':
    tempfile.tempdir = os.environ.get('TMPDIR') or None
    main()
