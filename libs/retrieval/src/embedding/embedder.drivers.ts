import { hashingEmbedderDriver } from './hashing.embedder-driver';
import { localEmbedderDriver } from './local/local.embedder-driver';
import { noEmbedderDriver } from './none.embedder-driver';
import { openAIEmbedderDriver } from './openai/openai.embedder-driver';

/** The embedders (TOOLGATE_EMBEDDER), one line each; the first is the default. */
export const EMBEDDER_DRIVERS = [localEmbedderDriver, noEmbedderDriver, hashingEmbedderDriver, openAIEmbedderDriver] as const;
