import {
  FACE_SWAP_LIMITS,
  FaceSwapMessages,
  judgeFaceSwap,
  parseFaceIndex,
  parseTargetFaces,
  type FoundFace,
} from './face-swap';

const face = (index: number, yaw: number): FoundFace => ({ index, box: [0, 0, 10, 10], score: 1, yaw });
const judge = (source: FoundFace[], target: FoundFace[], s: number | null, t: number[] | null) =>
  judgeFaceSwap(source, target, s, t, 'no source face', 'no target face');

describe('face choice', () => {
  it('reads the target faces: default the largest, a list, or all', () => {
    expect(parseTargetFaces(undefined, 3)).toEqual([0]);
    expect(parseTargetFaces('', 3)).toEqual([0]);
    expect(parseTargetFaces('2, 0,2', 3)).toEqual([0, 2]);
    expect(parseTargetFaces('ALL', 3)).toEqual([0, 1, 2]);
    expect(parseTargetFaces('left', 3)).toBeNull();
    expect(parseTargetFaces('-1', 3)).toBeNull();
    expect(parseTargetFaces('1.5', 3)).toBeNull();
    expect(parseFaceIndex(undefined)).toBe(0);
    expect(parseFaceIndex('1')).toBe(1);
    expect(parseFaceIndex('x')).toBeNull();
  });

  it('accepts faces that exist, warns about poses somewhat apart and refuses those too far apart', () => {
    const { maxYawDifferenceDegrees: max, warnYawDifferenceDegrees: warn } = FACE_SWAP_LIMITS;
    const source = [face(0, 0), face(1, 10)];
    const target = [face(0, 5), face(1, warn + 5), face(2, -(max + 5))];
    expect(judge(source, target, 0, [0])).toEqual({ ok: true, problems: [], warnings: [] });
    expect(judge(source, target, 0, [1])).toEqual({
      ok: true,
      problems: [],
      warnings: [FaceSwapMessages.poseWarning(1, warn + 5)],
    });
    expect(judge(source, target, 0, [0, 2])).toEqual({
      ok: false,
      problems: [FaceSwapMessages.poseRefused(2, max + 5)],
      warnings: [],
    });
    expect(judge(source, target, 2, [3]).problems).toEqual([
      FaceSwapMessages.badSourceFace,
      FaceSwapMessages.badTargetFaces,
    ]);
    expect(judge(source, target, 0, []).problems).toEqual([FaceSwapMessages.badTargetFaces]);
    expect(judge(source, target, null, null).ok).toBe(false);
    expect(judge([], [], 0, [0]).problems).toEqual(['no source face', 'no target face']);
  });
});
