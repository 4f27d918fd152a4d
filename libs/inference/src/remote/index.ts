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
export { ComfyUIEngine } from './comfyui-engine';
export type { ComfyUIEngineOptions } from './comfyui-engine';
export { COMFYUI_TOOLS, DEFAULT_WORKFLOW_DIR, LoadedWorkflow } from './comfyui-workflow';
export type { ComfyTool } from './comfyui-workflow';
export { FakeComfyUIServer, startFakeComfyUI } from './fake-comfyui-server';
export { ReplicateEngine, REPLICATE_TOOLS } from './replicate-engine';
export type { PredictionUpdates, ReplicateEngineOptions, ReplicateTool } from './replicate-engine';
export { signReplicateWebhook, verifyReplicateWebhook } from './replicate-webhook';
export { FakeReplicateServer, startFakeReplicate } from './fake-replicate-server';
export { RemoteEngineError, remoteFaultOf } from './remote-http';
export type { RemoteErrorKind, RemoteFault } from './remote-http';
