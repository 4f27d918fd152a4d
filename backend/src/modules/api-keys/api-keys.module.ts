import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { API_KEY_DIRECTORY } from '../auth';
import { ApiKey, ApiKeySchema, ApiKeySpend, ApiKeySpendSchema } from './api-key.schema';
import { ApiKeySpending } from './api-key-spending';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

/**
 * Personal API keys. Global so that auth's session guard (an app-wide guard) finds the key
 * directory it names, as it finds the accounts module's ACCOUNT_DIRECTORY.
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ApiKey.name, schema: ApiKeySchema },
      { name: ApiKeySpend.name, schema: ApiKeySpendSchema },
    ]),
  ],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeySpending, { provide: API_KEY_DIRECTORY, useExisting: ApiKeysService }],
  exports: [ApiKeysService, ApiKeySpending, API_KEY_DIRECTORY],
})
export class ApiKeysModule {}
