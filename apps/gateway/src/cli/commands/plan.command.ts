import type { Plan, PlanningCandidate } from '@toolgate/planner';
import type { Command } from 'commander';
import { imageOption, keyOption, readTaskImages, withCore } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

interface PlanFlags {
  image?: string[];
  session?: string;
  timeZone?: string;
  at?: string;
  key?: string;
  json?: boolean;
}

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description('plan a task: which tools, with which arguments, in which order (nothing runs)')
    .argument('<task>', 'what you want done, in words')
    .addOption(imageOption())
    .option('--session <id>', 'keep conversation state under this id (follow-ups such as "and in EUR?")')
    .option('--time-zone <zone>', 'IANA zone for dates and times without one (default: $TOOLGATE_TIME_ZONE or UTC)')
    .option('--at <instant>', 'ISO-8601 instant that relative dates resolve against (default: now)')
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (task: string, options: PlanFlags) => {
      await withCore(options.key, async (core) => {
        const images = await readTaskImages(options.image ?? []);
        const {
          result,
          candidates,
          images: described,
        } = await core.planTask.plan({ text: task, images, sessionId: options.session, timeZone: options.timeZone, referenceTime: options.at }, core.principal);
        printPlan(
          result,
          candidates,
          described.map((d) => d.text),
          options.json,
        );
      });
    });
}

/** A plan for people: decision, then the steps in order with their arguments and dependencies. */
function printPlan(plan: Plan, candidates: PlanningCandidate[], imageTexts: string[], json: boolean | undefined): void {
  if (json) {
    printJson({ ...plan, candidates: candidates.map(({ id, version, score, rank }) => ({ id, version, score, rank })), images: imageTexts });
    return;
  }
  process.stdout.write(`decision: ${plan.decision}\n`);
  if (plan.question) process.stdout.write(`question: ${plan.question}\n`);
  if (plan.explanation) process.stdout.write(`why: ${plan.explanation}\n`);
  for (const text of imageTexts) process.stdout.write(`image text: ${truncate(text.replace(/\s+/g, ' '), 100)}\n`);
  if (plan.steps.length > 0) {
    printTable(
      ['step', 'tool', 'arguments', 'after', 'reason'],
      plan.steps.map((step) => [step.id, step.tool, truncate(JSON.stringify(step.arguments), 60), step.dependsOn.join(', ') || '-', truncate(step.reason, 40)]),
    );
  }
  if (candidates.length > 0) process.stdout.write(`candidates: ${candidates.map((c) => c.id).join(', ')}\n`);
}
