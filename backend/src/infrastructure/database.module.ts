import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import mongoose from 'mongoose';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { databaseOutageOptions } from './outage';

/**
 * MongoDB through mongoose. Queries stay within what FerretDB (local) and MongoDB (production)
 * both support: single-document atomic updates and unique indexes, no multi-document transactions.
 */
// Mongoose formats a stack trace on every query it runs, only to name where a query was first run
// should it be run twice (a bug it then reports). Measured on the job pipeline: 3% of the API's CPU
// (npm run bench -- pipeline, BENCH_NODE_FLAGS=--cpu-prof).
mongoose.set('skipOriginalStackTraces', true);

@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        uri: config.MONGODB_URI,
        // While the database is down a query fails within OUTAGE_WAIT_MS (answered 503), and
        // the driver finds it again within a second of its return.
        ...databaseOutageOptions,
        autoIndex: true,
        // Command events time each database operation (modules/metrics).
        monitorCommands: true,
      }),
    }),
  ],
})
export class DatabaseModule {}
