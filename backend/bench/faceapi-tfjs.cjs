// @vladmandic/face-api's node-wasm build requires '@tensorflow/tfjs'; the bench hands it this
// module instead: the project's one tfjs-core (initialised on the wasm backend by tf-runtime.ts)
// and converter, so face-api's detectors run on the same engine as Human's BlazeFace and their
// times compare. face-api calls tensors' chained ops (x.as3D(), x.add(y)), which tfjs-core only
// registers from its ES modules: they are set here from the core's own ops.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const tf = require('@tensorflow/tfjs-core');

const proto = tf.Tensor.prototype;
const chained = path.join(
  path.dirname(require.resolve('@tensorflow/tfjs-core/package.json')),
  'dist/public/chained_ops',
);
for (const file of fs.readdirSync(chained)) {
  const match = /^(\w+)\.js$/.exec(file);
  if (!match) continue;
  const name = match[1].replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
  if (!proto[name] && typeof tf[name] === 'function') {
    proto[name] = function (...args) {
      return tf[name](this, ...args);
    };
  }
}
for (const rank of [1, 2, 3, 4, 5]) {
  proto[`as${rank}D`] = function (...shape) {
    return tf.reshape(this, shape.slice(0, rank));
  };
}
Object.assign(proto, {
  asScalar() {
    return tf.reshape(this, []);
  },
  asType(dtype) {
    return tf.cast(this, dtype);
  },
  toFloat() {
    return tf.cast(this, 'float32');
  },
  toInt() {
    return tf.cast(this, 'int32');
  },
  toBool() {
    return tf.cast(this, 'bool');
  },
  reshapeAs(other) {
    return tf.reshape(this, other.shape);
  },
});

module.exports = { ...tf, ...require('@tensorflow/tfjs-converter') };
