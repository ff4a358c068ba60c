import type { ImageDescriberDriver } from '../planning/planner.driver';
import { DEFAULT_MAX_IMAGE_BYTES } from './image-input.decoder';
import { DEFAULT_TESSERACT_OPTIONS, TesseractImageDescriber } from './tesseract.image-describer';

/** Local tesseract OCR: the default. */
export const ocrImageDescriberDriver = {
  name: 'ocr',
  create: (options) => new TesseractImageDescriber({ ...DEFAULT_TESSERACT_OPTIONS, ...options.images?.ocr, maxImageBytes: options.images?.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES }),
} as const satisfies ImageDescriberDriver<'ocr'>;
