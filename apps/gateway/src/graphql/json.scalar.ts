export { GraphQLJSON as JSONScalar } from 'graphql-type-json';
