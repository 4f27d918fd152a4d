export {
  A1111Engine,
  A1111_CAPABILITIES,
  DEFAULT_A1111_SETTINGS,
  MAX_GENERATE_SIDE,
  NO_FACE_EITHER,
} from './a1111-engine';
export type { A1111Capability, A1111EngineOptions, A1111Settings } from './a1111-engine';
export { A1111Error } from './a1111-client';
export type { A1111ErrorKind } from './a1111-client';
export { FakeA1111Server, startFakeA1111 } from './fake-a1111-server';
export type { FakeA1111Options, RecordedRequest } from './fake-a1111-server';
