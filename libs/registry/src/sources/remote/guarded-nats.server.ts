import { Logger } from '@nestjs/common';
import { ServerNats } from '@nestjs/microservices';
import { JSONCodec, type Msg } from 'nats';

const json = JSONCodec();

/**
 * Nest's NATS server, but a message it cannot decode (not JSON, not a packet) is refused with an
 * error reply instead of rejecting inside the NATS callback: any client with publish rights could
 * otherwise crash the process with one malformed message (an unhandled rejection).
 */
export class GuardedServerNats extends ServerNats {
  private readonly guardLogger = new Logger('NatsServer');

  override async handleMessage(channel: string, message: Msg): Promise<unknown> {
    try {
      return await super.handleMessage(channel, message);
    } catch (error) {
      this.guardLogger.warn({ subject: message.subject, err: error }, 'refused a NATS message that is not a valid packet');
      if (message.reply) message.respond(json.encode({ err: 'not a valid packet: a JSON object with pattern, data and id', isDisposed: true }));
      return undefined;
    }
  }
}
