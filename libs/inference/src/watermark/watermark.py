"""Invisible watermark in the luminance of images and video frames.

Method: a tiled spread-spectrum watermark with resynchronisation, after JAWS (Kalker, Depovere,
Haitsma, Maes, "A video watermarking system for broadcast monitoring", SPIE 3657, 1999) and
Kutter's periodic self-reference ("Watermarking resisting to translation, rotation and scaling",
SPIE 3528, 1998):
- one 128x128 tile (of 4x4-pixel chips, so it lives at frequencies that survive JPEG and a 2x
  downscale) holds a synchronisation pattern plus one pseudo-random pattern per payload bit,
  modulated by the bit; the tile repeats over the whole image, with a perceptual mask (stronger
  in texture, weaker in flat areas) and a global strength set for a target PSNR;
- detection whitens the image (subtracts a local mean, normalises local contrast), finds the
  tile's period from the autocorrelation peaks that the repetition makes (scale), folds the image
  into one tile (averages all tiles: crops only move the tile cyclically), finds the cyclic shift
  with a phase-only matched filter on the sync pattern (translation, SPOMF as in JAWS), and reads
  each bit as the sign of its pattern's correlation;
- the payload (a 32-bit id of the output) is protected by a Reed-Solomon code (reedsolo, 4 check
  bytes), decoded with Chase's use of the bits' reliabilities, and accepted only when the sync peak
  is far above the correlation noise and the code decodes close to the bits read: an unmarked image
  fails both.
Video: the same tile in every frame; detection averages the whitened frames.
"""

from __future__ import annotations

import numpy as np
import cv2
from reedsolo import RSCodec, ReedSolomonError

TILE = 128
CHIP = 4
CHIPS = TILE // CHIP
DATA_BYTES = 4
ECC_BYTES = 4
BITS = 8 * (DATA_BYTES + ECC_BYTES)
KEY = 0x57A7D10  # the studio's pattern key; changing it orphans every mark made before
SYNC_WEIGHT = 4.0  # sync pattern amplitude, in units of one bit pattern's
TARGET_PSNR = 41.0
SYNC_Z_MIN = 7.0  # the sync peak's distance from the surface's mean, in standard deviations
CHASE_BITS = 8  # the least reliable bits tried flipped
CHASE_FLIPS = 2  # at most this many at once
MAX_BIT_ERRORS = 6  # a decoded codeword farther than this from the bits read is refused
# Detection looks at a window of at most this many pixels a side, before and after rescaling: the
# tile repeats, so a window holds the mark as well as the whole picture (a crop only shifts the
# tile), and the work stays bounded. Without it a 6000 px picture was enlarged 6.4 times for a
# short candidate period: one 38400 px float plane (5.5 GiB) and more for the fold.
DETECT_WINDOW = 2048

_rs = RSCodec(ECC_BYTES)


def _upsample(chips: np.ndarray) -> np.ndarray:
    tile = np.kron(chips, np.ones((CHIP, CHIP), np.float32))
    # soften the chip edges (their harmonics are what JPEG and downscaling remove anyway)
    return _wrap_blur(tile, 0.8)


def _wrap_blur(tile: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a tile that repeats (cyclic borders; OpenCV's blur has no wrap mode)."""
    pad = int(4 * sigma + 1)
    padded = np.pad(tile, pad, mode='wrap')
    return cv2.GaussianBlur(padded, (0, 0), sigma)[pad:-pad, pad:-pad]


def _patterns():
    rng = np.random.default_rng(KEY)
    sync = rng.choice(np.array([-1.0, 1.0], np.float32), (CHIPS, CHIPS)).astype(np.float32)
    bits = rng.choice(np.array([-1.0, 1.0], np.float32), (BITS, CHIPS, CHIPS)).astype(np.float32)
    sync_t = _upsample(sync)
    bit_t = np.stack([_upsample(b) for b in bits])
    return sync_t, bit_t


SYNC_TILE, BIT_TILES = _patterns()


def _whiten_tile(tile: np.ndarray) -> np.ndarray:
    return tile - _wrap_blur(tile, 3.0)


SYNC_REF = _whiten_tile(SYNC_TILE)
BIT_REFS = np.stack([_whiten_tile(b) for b in BIT_TILES]).reshape(BITS, -1)
SYNC_REF_F = np.conj(np.fft.fft2(SYNC_REF))


def payload_bits(mark_id: int) -> np.ndarray:
    data = int(mark_id).to_bytes(DATA_BYTES, 'big')
    code = bytes(_rs.encode(data))
    return np.unpackbits(np.frombuffer(code, np.uint8)).astype(np.float32) * 2 - 1


def tile_for(mark_id: int) -> np.ndarray:
    bits = payload_bits(mark_id)
    tile = SYNC_WEIGHT * SYNC_TILE + np.tensordot(bits, BIT_TILES, axes=1)
    return (tile / tile.std()).astype(np.float32)


def _mask(y: np.ndarray) -> np.ndarray:
    """Perceptual mask: local contrast, so flat areas get a weaker mark than textured ones."""
    mean = cv2.blur(y, (9, 9))
    var = cv2.blur(y * y, (9, 9)) - mean * mean
    std = np.sqrt(np.maximum(var, 0))
    m = std / (std.mean() + 1e-3)
    return np.clip(0.35 + m, 0.35, 2.5)


def _tiled(tile: np.ndarray, h: int, w: int) -> np.ndarray:
    reps = (-(-h // TILE), -(-w // TILE))
    return np.tile(tile, reps)[:h, :w]


def embed_luma(y: np.ndarray, mark_id: int, tile: np.ndarray | None = None,
               psnr: float = TARGET_PSNR) -> np.ndarray:
    """Returns the marked luminance (uint8) of `y` (uint8, HxW)."""
    yf = y.astype(np.float32)
    pattern = _tiled(tile if tile is not None else tile_for(mark_id), *y.shape) * _mask(yf)
    target_rms = 255.0 / (10 ** (psnr / 20))
    pattern *= target_rms / (np.sqrt(np.mean(pattern * pattern)) + 1e-9)
    return np.clip(np.rint(yf + pattern), 0, 255).astype(np.uint8)


def embed_rgb(rgb: np.ndarray, mark_id: int) -> np.ndarray:
    """Marks an RGB(A) uint8 image: the luminance change is added to each colour channel."""
    colour = rgb[..., :3]
    ycc = cv2.cvtColor(np.ascontiguousarray(colour), cv2.COLOR_RGB2YCrCb)
    y = ycc[..., 0]
    delta = embed_luma(y, mark_id).astype(np.int16) - y.astype(np.int16)
    out = rgb.copy()
    out[..., :3] = np.clip(colour.astype(np.int16) + delta[..., None], 0, 255).astype(np.uint8)
    return out


def luma_of(rgb: np.ndarray) -> np.ndarray:
    if rgb.ndim == 2:
        return rgb.astype(np.float32)
    return cv2.cvtColor(np.ascontiguousarray(rgb[..., :3]), cv2.COLOR_RGB2YCrCb)[..., 0].astype(np.float32)


def detection_window(y: np.ndarray) -> np.ndarray:
    """The centre of a plane, at most DETECT_WINDOW a side (a view, nothing copied)."""
    h, w = y.shape[:2]
    top, left = max(0, (h - DETECT_WINDOW) // 2), max(0, (w - DETECT_WINDOW) // 2)
    return y[top:top + DETECT_WINDOW, left:left + DETECT_WINDOW]


def whiten(y: np.ndarray, sigma: float = 3.0) -> np.ndarray:
    r = y - cv2.GaussianBlur(y, (0, 0), sigma)
    local = np.sqrt(cv2.GaussianBlur(r * r, (0, 0), 8.0)) + 1.0
    return np.clip(r / local, -3, 3)


def candidate_periods(r: np.ndarray, limit: int = 4) -> list[float]:
    """The tile's period in this image, from the autocorrelation peaks of its whitened luminance."""
    h, w = r.shape
    side = min(1024, max(h, w))
    crop = r[:side, :side] - r[:side, :side].mean()
    ch, cw = crop.shape
    f = np.fft.rfft2(crop, s=(2 * ch, 2 * cw))
    acf = np.fft.irfft2(np.abs(f) ** 2, s=(2 * ch, 2 * cw))
    acf /= acf[0, 0] + 1e-9
    # overlap counts: lags near the size of the crop have few pairs
    lo, hi = 20, min(int(min(ch, cw) * 0.75), 320)
    if hi <= lo + 2:
        return []
    lags = np.arange(hi + 2)
    profile = np.zeros(hi + 2)
    profile += acf[0, : hi + 2] / np.maximum(1, (cw - lags)) * cw
    profile += acf[: hi + 2, 0] / np.maximum(1, (ch - lags)) * ch
    # a period p also peaks at 2p: add half of it, which favours the fundamental
    double = np.zeros_like(profile)
    for p in range(lo, hi + 1):
        if 2 * p < len(profile):
            double[p] = 0.5 * profile[2 * p]
    score = profile + double
    peaks = [p for p in range(lo, hi + 1) if score[p] >= score[p - 1] and score[p] >= score[p + 1]]
    peaks.sort(key=lambda p: -score[p])
    out: list[float] = []
    for p in peaks[:limit]:
        a, b, c = score[p - 1], score[p], score[p + 1]
        denom = a - 2 * b + c
        out.append(p + (0.5 * (a - c) / denom if abs(denom) > 1e-12 else 0.0))
    return out


def _fold(r: np.ndarray) -> np.ndarray:
    h, w = r.shape
    ph, pw = -(-h // TILE) * TILE, -(-w // TILE) * TILE
    acc = np.zeros((ph, pw), np.float32)
    cnt = np.zeros((ph, pw), np.float32)
    acc[:h, :w] = r
    cnt[:h, :w] = 1
    acc = acc.reshape(ph // TILE, TILE, pw // TILE, TILE).sum(axis=(0, 2))
    cnt = cnt.reshape(ph // TILE, TILE, pw // TILE, TILE).sum(axis=(0, 2))
    return acc / np.maximum(cnt, 1)


def _decode_folded(folded: np.ndarray):
    """(mark id or None, sync z, bit reliability) from one folded tile."""
    folded = folded - folded.mean()
    # the image's spectrum whitened, the pattern's kept: frequencies count by the pattern's energy
    f = np.fft.fft2(folded)
    surface = np.real(np.fft.ifft2(f / (np.abs(f) + 1e-6 * np.abs(f).max() + 1e-12) * SYNC_REF_F))
    idx = int(np.argmax(surface))
    dy, dx = divmod(idx, TILE)
    z = float((surface.flat[idx] - surface.mean()) / (surface.std() + 1e-12))
    if z < SYNC_Z_MIN:
        return None, z, 0.0
    aligned = np.roll(folded, (-dy, -dx), axis=(0, 1)).reshape(-1)
    soft = BIT_REFS @ aligned
    hard = soft > 0
    reliability = float(np.median(np.abs(soft)) / (soft.std() + 1e-9))
    # Chase decoding (Chase, IEEE Trans. Inf. Theory 18(1), 1972): the Reed-Solomon decoder on the
    # hard bits, then with up to CHASE_FLIPS of the least reliable bits flipped. A byte code alone
    # fails on a few scattered bit errors; and a result is kept only when its codeword lies within
    # MAX_BIT_ERRORS of what was read, so a miscorrection never names another output.
    weakest = np.argsort(np.abs(soft))[:CHASE_BITS]
    for flips in _flip_sets():
        trial = hard.copy()
        trial[weakest[list(flips)]] ^= True
        try:
            data = _rs.decode(bytearray(np.packbits(trial.astype(np.uint8)).tobytes()))[0]
        except ReedSolomonError:
            continue
        mark = int.from_bytes(bytes(data), 'big')
        if int(((payload_bits(mark) > 0) != hard).sum()) <= MAX_BIT_ERRORS:
            return mark, z, reliability
    return None, z, reliability


def _flip_sets():
    from itertools import combinations

    for k in range(CHASE_FLIPS + 1):
        yield from combinations(range(CHASE_BITS), k)


def detect_whitened(r: np.ndarray) -> dict:
    """Looks for the mark in one whitened luminance plane (or an average of frames)."""
    best = {'found': False, 'id': None, 'sync': 0.0, 'scale': None}
    # the sizes a shared copy most often has (as made, half) first, then the periods the
    # autocorrelation finds, then (small images, whose autocorrelation is weak) a coarse scan
    periods = [float(TILE), TILE / 2.0] + candidate_periods(r)
    if min(r.shape) < 720:
        periods += [TILE * s for s in np.geomspace(0.45, 1.05, 24)]
    tried: list[float] = []
    for p in periods:
        for q in (p, p * 0.995, p * 1.005):
            if any(abs(q - t) < 0.2 for t in tried):
                continue
            tried.append(q)
            factor = TILE / q
            if abs(factor - 1) < 1e-3:
                scaled = r
            else:
                # enlarged no further than the window: crop first (the tile only shifts)
                side = max(TILE, int(DETECT_WINDOW / max(factor, 1.0)))
                interp = cv2.INTER_CUBIC if factor > 1 else cv2.INTER_AREA
                scaled = cv2.resize(r[:side, :side], None, fx=factor, fy=factor, interpolation=interp)
            mark, z, _ = _decode_folded(_fold(scaled))
            if z > best['sync'] and not best['found']:
                best['sync'] = z
            if mark is not None:
                return {'found': True, 'id': mark, 'sync': z, 'scale': round(q / TILE, 4)}
    return best


def detect_rgb(rgb: np.ndarray) -> dict:
    return detect_whitened(whiten(luma_of(detection_window(rgb))))


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float('inf') if mse == 0 else float(10 * np.log10(255.0 ** 2 / mse))
