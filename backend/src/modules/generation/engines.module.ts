import { Module } from '@nestjs/common';
import { EngineRegistry } from './engine-registry';

/** The inference engines of this process (shared by generation and operations). */
@Module({ providers: [EngineRegistry], exports: [EngineRegistry] })
export class EnginesModule {}
