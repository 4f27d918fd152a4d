import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * MongoDB through mongoose. Queries stay within what FerretDB (local) and MongoDB (production)
 * both support: single-document atomic updates and unique indexes, no multi-document transactions.
 */
@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        uri: config.MONGODB_URI,
        serverSelectionTimeoutMS: 10_000,
        autoIndex: true,
      }),
    }),
  ],
})
export class DatabaseModule {}
