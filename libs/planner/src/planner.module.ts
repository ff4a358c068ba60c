import { Module } from '@nestjs/common';
import { ToolRetriever } from '@toolgate/retrieval';
import { fillArguments } from './arguments/argument-filler';
import type { PlannerModuleOptions } from './planner.config';
import { createPlanner } from './planner.factory';
import { PLANNER_OPTIONS, PlannerConfigurableModule } from './planner.module-definition';
import { Planner } from './planning/planner.port';
import { createImageDescriber } from './understanding/image-describer.factory';
import { ImageDescriber } from './understanding/image-describer.port';

/**
 * Provides the Planner port (deterministic by default, LLM when an OpenAI-compatible endpoint is
 * configured) and the ImageDescriber port (local OCR by default). The deterministic planner shares
 * the retrieval funnel's embedder when one is provided.
 */
@Module({
  providers: [
    { provide: ImageDescriber, inject: [PLANNER_OPTIONS], useFactory: (options: PlannerModuleOptions) => createImageDescriber(options) },
    {
      provide: Planner,
      inject: [PLANNER_OPTIONS, { token: ToolRetriever, optional: true }],
      useFactory: (options: PlannerModuleOptions, retriever?: ToolRetriever) =>
        createPlanner(options, {
          embedder: retriever?.embedder ?? null,
          fillArguments,
        }),
    },
  ],
  exports: [Planner, ImageDescriber, PLANNER_OPTIONS],
})
export class PlannerModule extends PlannerConfigurableModule {}
