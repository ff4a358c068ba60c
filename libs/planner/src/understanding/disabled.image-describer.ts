import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { TaskImage } from '../plan/plan.types';
import { ImageDescriber, type ImageDescription } from './image-describer.port';

/** `TOOLGATE_IMAGE_DESCRIBER=none`: a task with images is refused, never silently answered from its text alone. */
export class DisabledImageDescriber extends ImageDescriber {
  readonly kind = 'none';

  async describe(images: TaskImage[]): Promise<ImageDescription[]> {
    if (images.length === 0) return [];
    throw new ToolgateError(ErrorCode.UNAVAILABLE, 'this server does not accept images (TOOLGATE_IMAGE_DESCRIBER=none); set it to ocr or vision', [
      { path: '/images', message: 'images are turned off on this server' },
    ]);
  }
}
