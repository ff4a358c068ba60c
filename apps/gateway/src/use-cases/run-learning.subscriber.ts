import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { RunEventBus } from '@toolgate/executor';
import { ToolGraph, toolKey } from '@toolgate/planner';
import { CatalogService, UsageExampleService } from '@toolgate/registry';
import type { Run, RunEvent } from '@toolgate/sdk';
import type { Subscription } from 'rxjs';

interface Lesson {
  task: string;
  /** The tenant whose run it is: what it teaches is that tenant's only. */
  tenant: string;
  learned: boolean;
  /** The run's learning so far, in event order. */
  pending: Promise<void>;
}

/**
 * Learning from use, as a subscriber of run events. A run planned from a task (RUN_STARTED carries
 * its text; a plan the caller wrote has none) teaches retrieval that text as a usage example of each
 * tool that SUCCEEDED, re-syncing the index once when it ends, and, when it succeeds, teaches the
 * planner's relation graph which tool followed which. Both are the run's tenant's only: another
 * tenant's searches and plans never see them (issue 10).
 */
@Injectable()
export class RunLearningSubscriber implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RunLearning');
  private readonly lessons = new Map<string, Lesson>();
  private subscription?: Subscription;

  constructor(
    private readonly bus: RunEventBus,
    private readonly usage: UsageExampleService,
    private readonly catalog: CatalogService,
    private readonly graph: ToolGraph,
  ) {}

  onModuleInit(): void {
    this.subscription = this.bus.all().subscribe(({ runId, event }) => this.learn(runId, event));
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** Resolves once what the run's events so far have taught is stored (its caller may search right after). */
  settled(runId: string): Promise<void> {
    return this.lessons.get(runId)?.pending ?? Promise.resolve();
  }

  /** A run that stopped without RUN_FINISHED (its audit failed): nothing more comes for it. */
  forget(runId: string): void {
    this.lessons.delete(runId);
  }

  private learn(runId: string, event: RunEvent): void {
    if (event.type === 'RUN_STARTED') {
      if (event.run.task) this.lessons.set(runId, { task: event.run.task, tenant: event.run.owner.tenant, learned: false, pending: Promise.resolve() });
      return;
    }
    const lesson = this.lessons.get(runId);
    if (!lesson) return;
    if (event.type === 'STEP_FINISHED' && event.step.status === 'SUCCEEDED') {
      // Steps name tool@version; a usage example belongs to the tool.
      const toolId = toolKey(event.step.tool);
      lesson.pending = lesson.pending.then(() => this.record(runId, lesson, toolId));
    } else if (event.type === 'RUN_FINISHED') {
      if (event.run.status === 'SUCCEEDED') this.observe(event.run);
      lesson.pending = lesson.pending.then(() => {
        this.lessons.delete(runId);
        if (lesson.learned) this.catalog.notifyChanged();
      });
    }
  }

  private async record(runId: string, lesson: Lesson, toolId: string): Promise<void> {
    try {
      if (await this.usage.record(toolId, lesson.task, lesson.tenant)) lesson.learned = true;
    } catch (error) {
      this.logger.warn({ runId, tool: toolId, error: (error as Error).message }, 'recording a usage example failed');
    }
  }

  private observe(run: Run): void {
    const order = run.steps.filter((step) => step.status === 'SUCCEEDED' && step.startedAt).sort((a, b) => (a.startedAt as string).localeCompare(b.startedAt as string));
    if (order.length > 1) this.graph.observe(order, run.owner.tenant);
  }
}
