import { Module } from '@nestjs/common';
import { ToolRetriever } from '@toolgate/retrieval';
import { fillArguments } from './arguments/argument.filler';
import { ToolGraph } from './graph/tool.graph';
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
    // One relation graph per process: successful runs teach it which tools follow which.
    { provide: ToolGraph, useFactory: () => new ToolGraph() },
    {
      provide: Planner,
      inject: [PLANNER_OPTIONS, ToolGraph, { token: ToolRetriever, optional: true }],
      useFactory: (options: PlannerModuleOptions, graph: ToolGraph, retriever?: ToolRetriever) =>
        createPlanner(options, {
          embedder: retriever?.embedder ?? null,
          fillArguments,
          graph,
        }),
    },
  ],
  exports: [Planner, ImageDescriber, ToolGraph, PLANNER_OPTIONS],
})
export class PlannerModule extends PlannerConfigurableModule {}
