import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * ComfyUI API-format workflows (one JSON file per tool, "Save (API)" in ComfyUI) and how the studio
 * fills them. The studio finds nodes by their title (`_meta.title`, the name shown in ComfyUI's
 * editor), so an operator can replace a file with any workflow that titles its nodes:
 *
 * | title           | the studio sets                                      | tools              |
 * | --------------- | ---------------------------------------------------- | ------------------ |
 * | `studio:prompt` | `text`                                               | generate, inpaint  |
 * | `studio:seed`   | `seed` or `noise_seed` (a new random seed per job)   | generate, inpaint  |
 * | `studio:size`   | `width`, `height` (multiples of 8)                   | generate           |
 * | `studio:image`  | `image`: the uploaded input (faceSwap: the target)   | inpaint, superResolve, faceSwap |
 * | `studio:mask`   | `image`: the uploaded mask, white = repaint          | inpaint            |
 * | `studio:face`   | `image`: the uploaded face to use                    | faceSwap           |
 * | `studio:output` | nothing; its images are the result                   | every tool         |
 * | `studio:swapped`| nothing; the swap before face restoration (optional) | faceSwap           |
 *
 * Everything else (checkpoint, sampler, steps, upscale model, ReActor settings) is the file's.
 *
 * `studio:swapped` (a PreviewImage of the swap node's image, before a ReActorRestoreFace node):
 * ReActor's node restores faces whether or not it swapped one (comfyui-reactor-node nodes.py,
 * `reactor.execute`), so only the image before restoration shows whether a face was swapped.
 */
export const COMFYUI_TOOLS = ['generate', 'inpaint', 'superResolve', 'faceSwap'] as const;
export type ComfyTool = (typeof COMFYUI_TOOLS)[number];

export type ComfyMarker = 'prompt' | 'seed' | 'size' | 'image' | 'mask' | 'face' | 'output' | 'swapped';

/** The markers each tool's workflow must have. */
export const REQUIRED_MARKERS: Record<ComfyTool, readonly ComfyMarker[]> = {
  generate: ['prompt', 'seed', 'size', 'output'],
  inpaint: ['prompt', 'seed', 'image', 'mask', 'output'],
  superResolve: ['image', 'output'],
  faceSwap: ['image', 'face', 'output'],
};

/** The inputs a marker fills; the first that the node has (or the first) is set. */
const MARKER_INPUTS: Record<Exclude<ComfyMarker, 'output' | 'size' | 'swapped'>, readonly string[]> = {
  prompt: ['text', 'prompt'],
  seed: ['seed', 'noise_seed'],
  image: ['image'],
  mask: ['image'],
  face: ['image'],
};

export const TITLE_PREFIX = 'studio:';

/** The workflows shipped with the studio (libs/inference/workflows/comfyui). */
export const DEFAULT_WORKFLOW_DIR = join(__dirname, '..', '..', 'workflows', 'comfyui');

interface ComfyNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}
export type ComfyWorkflow = Record<string, ComfyNode>;

/** A workflow file that was read and checked: where each marker sits. */
export class LoadedWorkflow {
  private constructor(
    readonly tool: ComfyTool,
    readonly file: string,
    private readonly graph: ComfyWorkflow,
    /** Marker → node ids that carry it. */
    private readonly markers: Map<ComfyMarker, string[]>,
  ) {}

  /** Reads `<dir>/<tool>.json`; throws an Error naming the file and what is wrong with it. */
  static load(dir: string, tool: ComfyTool): LoadedWorkflow {
    const file = join(dir, `${tool}.json`);
    let graph: unknown;
    try {
      graph = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`ComfyUI workflow ${file} cannot be read: ${(error as Error).message}`);
    }
    if (!isRecord(graph) || Object.keys(graph).length === 0) {
      throw new Error(`ComfyUI workflow ${file} is not an API-format workflow (export it with "Save (API)")`);
    }
    const markers = new Map<ComfyMarker, string[]>();
    for (const [id, node] of Object.entries(graph)) {
      if (!isRecord(node) || typeof node.class_type !== 'string' || !isRecord(node.inputs)) {
        throw new Error(
          `ComfyUI workflow ${file}: node ${id} has no class_type/inputs (export it with "Save (API)")`,
        );
      }
      const title = isRecord(node._meta) ? node._meta.title : undefined;
      if (typeof title === 'string' && title.startsWith(TITLE_PREFIX)) {
        const marker = title.slice(TITLE_PREFIX.length).trim() as ComfyMarker;
        markers.set(marker, [...(markers.get(marker) ?? []), id]);
      }
    }
    const missing = REQUIRED_MARKERS[tool].filter((marker) => !markers.has(marker));
    if (missing.length > 0) {
      throw new Error(
        `ComfyUI workflow ${file} has no node titled ${missing.map((m) => `"${TITLE_PREFIX}${m}"`).join(', ')}`,
      );
    }
    return new LoadedWorkflow(tool, file, graph as ComfyWorkflow, markers);
  }

  /** Ids of the nodes whose images are the result. */
  get outputNodes(): string[] {
    return this.markers.get('output') ?? [];
  }

  /** Ids of the nodes titled `studio:<marker>` (none: []). */
  nodesMarked(marker: ComfyMarker): string[] {
    return this.markers.get(marker) ?? [];
  }

  /** The workflow's nodes (read-only use): what the server must have to run it. */
  get nodes(): readonly { id: string; class_type: string; inputs: Readonly<Record<string, unknown>> }[] {
    return Object.entries(this.graph).map(([id, node]) => ({ id, ...node }));
  }

  /** A copy of the workflow with the studio's values set. */
  fill(values: {
    prompt?: string;
    seed?: number;
    size?: { width: number; height: number };
    image?: string;
    mask?: string;
    face?: string;
  }): ComfyWorkflow {
    const graph = structuredClone(this.graph);
    for (const [marker, value] of Object.entries(values) as [keyof typeof values, unknown][]) {
      if (value === undefined) continue;
      for (const id of this.markers.get(marker) ?? []) {
        const inputs = graph[id].inputs;
        if (marker === 'size') {
          const size = value as { width: number; height: number };
          inputs.width = size.width;
          inputs.height = size.height;
          continue;
        }
        const names = MARKER_INPUTS[marker];
        const name = names.find((n) => n in inputs) ?? names[0];
        inputs[name] = value;
      }
    }
    return graph;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
