import type { ImageDescriberDriver } from '../planning/planner.driver';
import { DEFAULT_MAX_IMAGE_BYTES } from './image-input.decoder';
import { OpenAIVisionDescriber } from './openai-vision.image-describer';

/** A vision model on the planner's OpenAI-compatible endpoint. */
export const visionImageDescriberDriver = {
  name: 'vision',
  impliedBy: (env) => env.TOOLGATE_VISION_MODEL !== undefined,
  create: (options) =>
    new OpenAIVisionDescriber({
      apiKey: options.llm.apiKey,
      baseURL: options.llm.baseURL,
      timeoutMs: options.llm.timeoutMs,
      maxRetries: options.llm.maxRetries,
      model: options.visionModel,
      maxImageBytes: options.images?.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES,
    }),
} as const satisfies ImageDescriberDriver<'vision'>;
