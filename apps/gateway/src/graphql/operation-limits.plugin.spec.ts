import { Kind, type OperationDefinitionNode, parse } from 'graphql';
import { tooDeepField } from './operation-limits.plugin';

const check = (source: string, maxDepth: number) => {
  const document = parse(source);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return tooDeepField(document, operation as OperationDefinitionNode, maxDepth);
};

describe('tooDeepField', () => {
  it('accepts an operation at the limit', () => {
    expect(check('{ tools { versions { version } } }', 3)).toBeNull();
  });

  it('names the first field past the limit, using aliases', () => {
    expect(check('{ t: tools { versions { version } } }', 2)).toEqual({ path: 't.versions.version', depth: 3 });
  });

  it('follows fragments and inline fragments, and ignores introspection fields', () => {
    const source = `
      query { searchTools(input: {query: "x"}) { ...M } __schema { types { fields { type { name } } } } }
      fragment M on ToolMatch { tool { ... on Tool { versions { version } } } }`;
    expect(check(source, 3)).toEqual({ path: 'searchTools.tool.versions.version', depth: 4 });
    expect(check(source, 4)).toBeNull();
  });

  it('terminates on self-referencing fragments', () => {
    const source = 'query { tools { ...A } } fragment A on Tool { id ...A }';
    expect(check(source, 5)).toBeNull();
  });
});
