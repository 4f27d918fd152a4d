"""Judge of `npm run bench -- quality` (run with .tools/quality/bin/python, set up by
ensure_quality_tools): tools the engine itself never uses.

Input: a JSON manifest path. Output (stdout): one JSON object.
- swaps: for each {source, target, output} PNG/JPEG path, dlib's face detector (HOG) on the output,
  and the distance of dlib's 128-d face descriptor (dlib_face_recognition_resnet_model_v1, from the
  face_recognition_models wheel) of the output to the source's and to the target's (same person
  below about 0.6).
- sr: for each {original, small, outputs: {name: path}}, PSNR and SSIM (Gaussian window 11, sigma
  1.5, on luma) against the original, for each output and for PIL's bicubic and Lanczos upscaling of
  the small image (pixel centres aligned, as PIL resizes).
"""
import json
import sys

import dlib
import face_recognition_models as models
import numpy as np
from PIL import Image

detector = dlib.get_frontal_face_detector()
shape_predictor = dlib.shape_predictor(models.pose_predictor_model_location())
encoder = dlib.face_recognition_model_v1(models.face_recognition_model_location())


def load(path):
    return np.asarray(Image.open(path).convert("RGB"))


def descriptor(image):
    """(faces found, descriptor of the largest) - upsampling once finds the smaller faces too."""
    faces = detector(image, 1)
    if not faces:
        return 0, None
    face = max(faces, key=lambda r: r.width() * r.height())
    shape = shape_predictor(image, face)
    return len(faces), np.array(encoder.compute_face_descriptor(image, shape, 1))


def distance(a, b):
    return None if a is None or b is None else float(np.linalg.norm(a - b))


def luma(rgb):
    rgb = rgb.astype(np.float64)
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def gaussian_filter(x, sigma=1.5, radius=5):
    k = np.exp(-(np.arange(-radius, radius + 1) ** 2) / (2 * sigma * sigma))
    k /= k.sum()
    x = np.apply_along_axis(lambda r: np.convolve(r, k, mode="valid"), 1, x)
    return np.apply_along_axis(lambda c: np.convolve(c, k, mode="valid"), 0, x)


def ssim(a, b):
    a, b = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = gaussian_filter(a), gaussian_filter(b)
    var_a = gaussian_filter(a * a) - mu_a**2
    var_b = gaussian_filter(b * b) - mu_b**2
    cov = gaussian_filter(a * b) - mu_a * mu_b
    s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a**2 + mu_b**2 + c1) * (var_a + var_b + c2))
    return float(s.mean())


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float(10 * np.log10(255 * 255 / max(mse, 1e-10)))


def main():
    manifest = json.load(open(sys.argv[1]))
    result = {"swaps": [], "sr": []}
    cache = {}

    def desc(path):
        if path not in cache:
            cache[path] = descriptor(load(path))
        return cache[path]

    for swap in manifest.get("swaps", []):
        source_found, source = desc(swap["source"])
        target_found, target = desc(swap["target"])
        found, output = desc(swap["output"]) if swap.get("output") else (0, None)
        result["swaps"].append(
            {
                "facesFound": found,
                "sourceFaceFound": source_found > 0,
                "targetFaceFound": target_found > 0,
                "toSource": distance(output, source),
                "toTarget": distance(output, target),
                "sourceTarget": distance(source, target),
            }
        )
    for case in manifest.get("sr", []):
        original = load(case["original"])
        small = Image.open(case["small"]).convert("RGB")
        size = (original.shape[1], original.shape[0])
        outputs = {
            "bicubic": np.asarray(small.resize(size, Image.BICUBIC)),
            "lanczos": np.asarray(small.resize(size, Image.LANCZOS)),
        }
        for name, path in case["outputs"].items():
            outputs[name] = load(path)
        result["sr"].append({name: {"psnr": psnr(o, original), "ssim": ssim(o, original)} for name, o in outputs.items()})
    json.dump(result, sys.stdout)


main()
