import type { PlannerModuleOptions } from '../planner.config';
import { DisabledImageDescriber } from './disabled.image-describer';
import type { ImageDescriber } from './image-describer.port';
import { DEFAULT_MAX_IMAGE_BYTES } from './image-input';
import { OpenAIVisionDescriber } from './openai-vision.image-describer';
import { DEFAULT_TESSERACT_OPTIONS, TesseractImageDescriber } from './tesseract.image-describer';

/** The configured image describer: local OCR (default), a vision model on the LLM endpoint, or none. */
export function createImageDescriber(options: Pick<PlannerModuleOptions, 'imageDescriber' | 'visionModel' | 'llm' | 'images'>): ImageDescriber {
  const maxImageBytes = options.images?.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  switch (options.imageDescriber) {
    case 'none':
      return new DisabledImageDescriber();
    case 'vision':
      return new OpenAIVisionDescriber({
        apiKey: options.llm.apiKey,
        baseURL: options.llm.baseURL,
        timeoutMs: options.llm.timeoutMs,
        maxRetries: options.llm.maxRetries,
        model: options.visionModel,
        maxImageBytes,
      });
    case 'ocr':
      return new TesseractImageDescriber({ ...DEFAULT_TESSERACT_OPTIONS, ...options.images?.ocr, maxImageBytes });
  }
}
