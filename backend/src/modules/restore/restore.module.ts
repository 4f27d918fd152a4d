import { Module } from '@nestjs/common';
import { GenerationModule } from '../generation';
import { RestoreRecovery } from './restore-recovery';

/** What a restore from backup (deploy/local/restore.sh) leaves to the app's next start. */
@Module({
  imports: [GenerationModule],
  providers: [RestoreRecovery],
})
export class RestoreModule {}
