"""Before/after contact sheet of two `npm run bench -- quality` output folders (run with
.tools/quality/bin/python): per face swap, the target's face, then the before and after outputs
(cropped around the face dlib finds in the target); per SR case, a crop of the original, PIL's
bicubic and the before/after engine outputs.

usage: quality-contact-sheet.py FACES_DIR BEFORE_DIR AFTER_DIR OUT.png
"""
import glob
import os
import sys

import dlib
import numpy as np
from PIL import Image, ImageDraw

faces_dir, before_dir, after_dir, out_path = sys.argv[1:5]
TILE = 220
detector = dlib.get_frontal_face_detector()


def face_box(image):
    found = detector(np.asarray(image), 1)
    if found:
        f = max(found, key=lambda r: r.width() * r.height())
        cx, cy, s = (f.left() + f.right()) / 2, (f.top() + f.bottom()) / 2, max(f.width(), f.height()) * 1.2
    else:
        cx, cy, s = image.width / 2, image.height / 3, min(image.width, image.height) / 3
    return tuple(int(v) for v in (cx - s, cy - s, cx + s, cy + s))


def tile(image, box, label):
    t = image.crop(box).resize((TILE, TILE), Image.LANCZOS)
    ImageDraw.Draw(t).text((4, 4), label, fill=(255, 255, 0))
    return t


rows = []
for after in sorted(glob.glob(os.path.join(after_dir, "swap-*"))):
    name = os.path.basename(after)
    target_name = name.split("-on-")[1].rsplit(".", 1)[0]
    target = Image.open(os.path.join(faces_dir, target_name + ".jpg")).convert("RGB")
    target.thumbnail((1024, 1024))
    box = face_box(target)
    before = os.path.join(before_dir, name)
    row = [tile(target, box, "target " + target_name)]
    row.append(tile(Image.open(before).convert("RGB"), box, "before") if os.path.exists(before) else None)
    row.append(tile(Image.open(after).convert("RGB"), box, "after"))
    rows.append(row)
for after in sorted(glob.glob(os.path.join(after_dir, "sr-*-x2.png")))[:4]:
    base = os.path.basename(after)[: -len("-x2.png")]
    original = Image.open(os.path.join(after_dir, base + "-original.png")).convert("RGB")
    small = Image.open(os.path.join(after_dir, base + "-small.png")).convert("RGB")
    box = face_box(original)
    w, h = box[2] - box[0], box[3] - box[1]
    box = (box[0] + w // 4, box[1] + h // 4, box[2] - w // 4, box[3] - h // 4)  # closer: the detail
    row = [tile(original, box, "original " + base[3:]), tile(small.resize(original.size, Image.BICUBIC), box, "bicubic")]
    row.append(tile(Image.open(os.path.join(before_dir, base + "-x2.png")).convert("RGB"), box, "before"))
    row.append(tile(Image.open(after).convert("RGB"), box, "after"))
    rows.append(row)
for extra in sorted(glob.glob(os.path.join(after_dir, "inpaint-*.png"))):
    image = Image.open(extra).convert("RGB")
    rows.append([image.resize((TILE * image.width // image.height, TILE))])

width = max(sum((t.width if t else TILE) for t in row) for row in rows)
sheet = Image.new("RGB", (width, TILE * len(rows)), (40, 40, 40))
for r, row in enumerate(rows):
    x = 0
    for t in row:
        if t:
            sheet.paste(t, (x, r * TILE))
        x += t.width if t else TILE
sheet.save(out_path)
print(out_path, sheet.size)
