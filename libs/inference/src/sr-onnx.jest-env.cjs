// A jest environment for specs that run onnxruntime-node in jest's own thread. The native binding
// creates its output arrays in Node's main realm, while jest runs each spec in a vm context with
// its own Float32Array, so onnxruntime-common's `data instanceof Float32Array` check refuses them.
// Here the spec's context shares the main realm's Float32Array. (Worker threads and the app have
// one realm and need none of this.)
const { TestEnvironment } = require('jest-environment-node');

module.exports = class OnnxRuntimeEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Float32Array = Float32Array;
  }
};
