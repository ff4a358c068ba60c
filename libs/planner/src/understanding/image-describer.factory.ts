import { driverNamed } from '@toolgate/sdk';
import type { PlannerModuleOptions } from '../planner.config';
import { IMAGE_DESCRIBER_DRIVERS } from './image-describer.drivers';
import type { ImageDescriber } from './image-describer.port';

/** The configured image describer: local OCR (default), a vision model on the LLM endpoint, or none. */
export function createImageDescriber(options: Pick<PlannerModuleOptions, 'imageDescriber' | 'visionModel' | 'llm' | 'images'>): ImageDescriber {
  return driverNamed('TOOLGATE_IMAGE_DESCRIBER', IMAGE_DESCRIBER_DRIVERS, options.imageDescriber).create(options);
}
