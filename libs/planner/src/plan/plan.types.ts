/** The shapes of DESIGN.md; the planner issue adds the Planner port and its drivers around them. */
export type Decision = 'USE_TOOLS' | 'ANSWER_DIRECTLY' | 'CLARIFY' | 'NO_MATCH';

/** An argument bound to an earlier step's output: `steps.<id>.output.<json pointer>`. */
export interface Binding {
  $ref: string;
}

export interface PlanStep {
  id: string;
  /** `namespace/name@version` or `namespace/name`. */
  tool: string;
  arguments: Record<string, unknown>;
  dependsOn: string[];
  reason: string;
}

export interface Plan {
  id: string;
  decision: Decision;
  question?: string;
  steps: PlanStep[];
}

export interface TaskInput {
  text: string;
  images: { mimeType: string; data: string }[];
}
