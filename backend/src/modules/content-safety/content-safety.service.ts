import { Inject, Injectable } from '@nestjs/common';
import {
  hasMinorFace,
  isSexual,
  sexualScore,
  TOOL_LABELS,
  type ContentCheck,
  type JobTool,
  type SafetyPolicy,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { AuthUser } from '../auth';
import { ContentClassifierPort, type TimedContentCheck } from './content-classifier.port';
import { SafetyLog } from './safety-log';
import { SafetyRefusal } from './safety-refusal';

/** A job's outputs as judged: shown, withheld (refunded), or held for a moderator. */
export type OutputVerdict =
  | { kind: 'show'; checks: ContentCheck[] }
  | { kind: 'withhold'; reason: 'sexual_output' | 'sexual_output_unassured'; checks: ContentCheck[] }
  | { kind: 'hold'; reason: 'minor_face'; checks: ContentCheck[] };

/**
 * Who the outputs are for: whether their owner may see sexual content (age-assured, or the gate is
 * off). Asked only when an output is sexual and the tool is not a photo tool, so a job with no
 * sexual output never depends on reading it; an error of the question fails the judgement.
 */
export interface OutputOwner {
  maySeeSexual: () => Promise<boolean>;
}

/** Tools whose input is an uploaded photograph of a person: a sexual output of one is never shown. */
const PHOTO_TOOLS: ReadonlySet<JobTool> = new Set(['inpaint', 'faceSwap', 'faceSwapVideo']);

/**
 * The content policy (issue 37): no intimate image of a real person made from an upload, no
 * sexual image for an account without an age check (issue 52), and a generated face the age model
 * puts under 18 waits for a person. Thresholds are the operator's
 * (SAFETY_SEXUAL_THRESHOLD, SAFETY_MINOR_AGE).
 */
@Injectable()
export class ContentSafety {
  private replacement: ContentClassifierPort | null = null;

  constructor(
    private readonly classifier: ContentClassifierPort,
    private readonly log: SafetyLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get policy(): SafetyPolicy {
    return { sexualThreshold: this.config.SAFETY_SEXUAL_THRESHOLD, minorAge: this.config.SAFETY_MINOR_AGE };
  }

  /** Puts another classifier in place in this process (tests: a double that labels marked images). */
  override(classifier: ContentClassifierPort | null): void {
    this.replacement = classifier;
  }

  inspect(images: Buffer[]): Promise<TimedContentCheck[]> {
    return (this.replacement ?? this.classifier).inspect(images);
  }

  /**
   * Face swap's free check (and the swap's own check before any charge): a source or target
   * classified sexual is refused with reason sexual_input. Returns the checks to store with the job.
   */
  async refuseSexualInputs(user: AuthUser, tool: JobTool, images: Buffer[]): Promise<ContentCheck[]> {
    const checks = (await this.inspect(images)).map(stored);
    if (checks.some((check) => isSexual(check, this.policy))) {
      await this.log.record({
        userId: user.id,
        username: user.username,
        action: 'refused',
        reason: 'sexual_input',
        tool,
        detail: `${TOOL_LABELS[tool]}: ${describe(checks)}`,
      });
      throw new SafetyRefusal('sexual_input');
    }
    return checks;
  }

  /**
   * Judges a job's outputs before anyone sees them (a video comes as frames sampled from it). A
   * sexual output is withheld for a photo tool whoever asked, and for any tool when its owner has
   * no age check (the prompt check in front of Generate is words only: this is what was made).
   */
  async judgeOutputs(tool: JobTool, outputs: Buffer[], owner: OutputOwner): Promise<OutputVerdict> {
    const checks = (await this.inspect(outputs)).map(stored);
    const sexual = checks.some((check) => isSexual(check, this.policy));
    if (sexual && PHOTO_TOOLS.has(tool)) return { kind: 'withhold', reason: 'sexual_output', checks };
    if (sexual && !(await owner.maySeeSexual())) {
      return { kind: 'withhold', reason: 'sexual_output_unassured', checks };
    }
    if (tool === 'generate' && checks.some((check) => hasMinorFace(check, this.policy))) {
      return { kind: 'hold', reason: 'minor_face', checks };
    }
    return { kind: 'show', checks };
  }
}

/** What is stored: scores and face ages, not the timings. */
function stored(check: TimedContentCheck): ContentCheck {
  return { scores: check.scores, faces: check.faces };
}

/** Scores for the log line: sexual share and face ages of each image. */
export function describe(checks: ContentCheck[]): string {
  return checks
    .map((check, i) => {
      const sexual = sexualScore(check.scores);
      const ages = check.faces.map((face) => face.age).join(', ');
      return `image ${i + 1}: sexual ${sexual.toFixed(2)}${ages ? `, face ages ${ages}` : ''}`;
    })
    .join('; ');
}
