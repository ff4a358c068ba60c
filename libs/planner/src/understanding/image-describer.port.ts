import type { TaskImage } from '../plan/plan.types';

export interface ImageDescription {
  /** Text read from or describing the image; appended to the query and available to argument filling. */
  text: string;
  /** `ocr` (local) or `vision` (a model). */
  source: 'ocr' | 'vision';
  mimeType: string;
  name?: string;
}

/** Port: turns task images into text. Drivers: local OCR (default) and a vision model via the openai client. */
export abstract class ImageDescriber {
  abstract readonly kind: string;
  /** One description per image, in order. Unsupported types are INVALID_ARGUMENTS naming the image. */
  abstract describe(images: TaskImage[], signal?: AbortSignal): Promise<ImageDescription[]>;
}
