import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { companionEdges, ToolGraph } from '@toolgate/planner';
import { CatalogService } from '@toolgate/registry';
import type { Subscription } from 'rxjs';

/**
 * Keeps the planner's relation graph in step with what the catalog's manifests declare: each active
 * version's `companions` become declared edges (the schemas say which of two tools comes first), so a
 * plan for a tool no run has taught yet may add the step its plugin says goes with it. What runs
 * taught stays; a companion a new version no longer declares is forgotten.
 */
@Injectable()
export class DeclaredRelationsSubscriber implements OnModuleInit, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly catalog: CatalogService,
    private readonly graph: ToolGraph,
  ) {}

  onModuleInit(): void {
    this.sync();
    this.subscription = this.catalog.changes$.subscribe(() => this.sync());
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  private sync(): void {
    const declared = this.catalog
      .activeTools()
      .flatMap((tool) =>
        tool.active ? [{ id: tool.id, inputSchema: tool.active.descriptor.inputSchema, outputSchema: tool.active.descriptor.outputSchema, companions: tool.active.descriptor.companions }] : [],
      );
    this.graph.redeclare(companionEdges(declared));
  }
}
