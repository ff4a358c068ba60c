import type { Driver } from '@toolgate/sdk';
import type { DeterministicPlannerOptions } from '../deterministic/deterministic.planner';
import type { PlannerModuleOptions } from '../planner.config';
import type { ImageDescriber } from '../understanding/image-describer.port';
import type { Planner } from './planner.port';

/** What drivers may read to tell whether the environment alone asks for them. */
export interface PlannerDriverEnv {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  TOOLGATE_VISION_MODEL?: string;
}

/** A planning strategy: built from the planner's options, with the deterministic planner's collaborators (embedder, argument filler, tool graph) at hand. */
export type PlannerDriver<Name extends string = string> = Driver<Name, PlannerDriverEnv, Pick<PlannerModuleOptions, 'planner' | 'llm'>, Planner, DeterministicPlannerOptions>;

/** An image describer: images become text before retrieval and planning. */
export type ImageDescriberDriver<Name extends string = string> = Driver<Name, PlannerDriverEnv, Pick<PlannerModuleOptions, 'imageDescriber' | 'visionModel' | 'llm' | 'images'>, ImageDescriber>;
