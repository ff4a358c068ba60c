import { noImageDescriberDriver } from './none.describer-driver';
import { ocrImageDescriberDriver } from './ocr.describer-driver';
import { visionImageDescriberDriver } from './vision.describer-driver';

/** The image describers (TOOLGATE_IMAGE_DESCRIBER), one line each; the first is the default. */
export const IMAGE_DESCRIBER_DRIVERS = [ocrImageDescriberDriver, visionImageDescriberDriver, noImageDescriberDriver] as const;
