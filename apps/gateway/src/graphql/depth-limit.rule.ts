import { type ASTVisitor, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, type ValidationContext } from 'graphql';
import { ErrorCode } from '@toolgate/sdk';

/**
 * Rejects operations nested deeper than `maxDepth` fields, naming the field that crossed the limit.
 * Written here because the usual package is unmaintained and reports no error code or field.
 */
export function depthLimitRule(maxDepth: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const measure = (selectionSet: SelectionSetNode | undefined, depth: number, path: string[], seen: Set<string>): void => {
      if (!selectionSet) return;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value.startsWith('__')) continue;
          const here = [...path, selection.alias?.value ?? selection.name.value];
          if (depth + 1 > maxDepth) {
            context.reportError(
              new GraphQLError(`field "${here.join('.')}" is at depth ${depth + 1}, over the maximum of ${maxDepth}`, {
                nodes: [selection],
                extensions: { code: ErrorCode.QUERY_TOO_DEEP, field: here.join('.'), maxDepth },
              }),
            );
            return;
          }
          measure(selection.selectionSet, depth + 1, here, seen);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          measure(selection.selectionSet, depth, path, seen);
        } else {
          const name = selection.name.value;
          if (seen.has(name)) continue;
          measure(fragments.get(name)?.selectionSet, depth, path, new Set([...seen, name]));
        }
      }
    };
    return {
      OperationDefinition(operation) {
        measure(operation.selectionSet, 0, [], new Set());
        return false;
      },
    };
  };
}
