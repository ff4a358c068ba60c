import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/** Deepest nesting an input value may have (tool arguments, plans); far above any real schema's. */
export const MAX_INPUT_DEPTH = 64;

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Refuses input nested deeper than MAX_INPUT_DEPTH before anything recursive (class-validator, the
 * plan validator) walks it: 20,000 levels of `{"a": ...}` overflowed the stack and came back as
 * INTERNAL. Walks iteratively, so the check itself cannot overflow.
 */
@Injectable()
export class InputDepthPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const stack: { node: unknown; path: string; depth: number }[] = [{ node: value, path: metadata.data ? `/${escapeToken(metadata.data)}` : '', depth: 0 }];
    while (stack.length > 0) {
      const { node, path, depth } = stack.pop() as (typeof stack)[number];
      if (node === null || typeof node !== 'object') continue;
      if (depth >= MAX_INPUT_DEPTH) {
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `input nested deeper than ${MAX_INPUT_DEPTH} levels`, [{ path, message: `nests deeper than ${MAX_INPUT_DEPTH} levels` }]);
      }
      for (const [key, child] of Object.entries(node)) stack.push({ node: child, path: `${path}/${escapeToken(key)}`, depth: depth + 1 });
    }
    return value;
  }
}
