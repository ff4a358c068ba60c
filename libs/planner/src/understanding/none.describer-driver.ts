import type { ImageDescriberDriver } from '../planning/planner.driver';
import { DisabledImageDescriber } from './disabled.image-describer';

/** Images are refused. */
export const noImageDescriberDriver = { name: 'none', create: () => new DisabledImageDescriber() } as const satisfies ImageDescriberDriver<'none'>;
