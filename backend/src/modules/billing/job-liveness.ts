import { Injectable } from '@nestjs/common';

/**
 * Port asked by the ledger's recovery pass: does a job still hold its reservation? The generation
 * module provides the real answer; until a job system is wired in, no job is alive, so expired
 * reservations are returned.
 */
@Injectable()
export class JobLiveness {
  private check: (jobId: string) => Promise<boolean> = async () => false;

  /** Called by the module that owns jobs. */
  use(check: (jobId: string) => Promise<boolean>): void {
    this.check = check;
  }

  isAlive(jobId: string): Promise<boolean> {
    return this.check(jobId);
  }
}
