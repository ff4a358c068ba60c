import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';

/** Structured JSON logs; the OTel pino instrumentation adds trace_id and span_id to each record. */
export const loggingModule = (level: string, destination: 1 | 2 = 1) =>
  LoggerModule.forRoot({
    pinoHttp: {
      level,
      genReqId: (req) => (req.headers['x-request-id'] as string | undefined) ?? randomUUID(),
      autoLogging: { ignore: (req) => req.url?.startsWith('/health') === true },
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      serializers: { req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }) },
      stream: destination === 1 ? process.stdout : process.stderr,
    },
  });
