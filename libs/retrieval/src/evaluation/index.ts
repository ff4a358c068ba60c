/** `@toolgate/retrieval/evaluation`: offline evaluation (dataset readers, the evaluation loop, metrics); not part of the runtime surface. */
export { type EvalQuery, type EvalTool, evalToolDocument, readEvalQueries, readEvalTools, readToolGraph } from './eval-dataset.reader';
export { evaluateRetrieval, type RetrievalEvalOptions, type RetrievalEvalResult, type RetrievalQueryRecord } from './retrieval.evaluator';
export { completeAt, ndcgAt, percentile, type RetrievalReport, RetrievalScorer, recallAt, reciprocalRank } from './retrieval.metrics';
