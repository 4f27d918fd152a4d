// The image decoder process (see image-decoder.ts): decodes one upload per message with sharp and
// answers the engines' form of it (PNG within a side, or filled to an exact size). It runs under an
// address-space ceiling set by its parent's shell (`ulimit -v`), so an image that makes libvips
// allocate without bound ends this process, never the API's.
'use strict';
const sharp = require('sharp');

// No operation cache (each upload is decoded once) and one libvips thread per decode: the
// parent decides how many decode at once.
sharp.cache(false);
sharp.concurrency(1);

async function decode(request) {
  const input = typeof request.input === 'string' ? request.input : Buffer.from(request.input);
  let image = sharp(input, { limitInputPixels: request.maxPixels, failOn: 'error' }).rotate();
  image = request.fill
    ? image.resize(request.fill.width, request.fill.height, { fit: 'fill' })
    : image.resize(request.maxSide, request.maxSide, { fit: 'inside', withoutEnlargement: true });
  const { data, info } = await image.png().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

process.on('message', (request) => {
  decode(request).then(
    (result) => process.send({ id: request.id, ok: true, ...result }),
    (err) => process.send({ id: request.id, ok: false, error: String((err && err.message) || err) }),
  );
});
// the parent went away: nothing left to answer
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
