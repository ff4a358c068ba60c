import type { AccessPolicyService, Principal } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/**
 * The principal of a command-line key (`--key`, else $TOOLGATE_API_KEY). In a keyed deployment a
 * missing or unknown key is UNAUTHENTICATED naming both places, not the HTTP header a request would use.
 */
export function commandLinePrincipal(access: AccessPolicyService, key: string | undefined): Principal {
  try {
    return access.authenticate(key);
  } catch (error) {
    const message = key ? 'the API key from --key / $TOOLGATE_API_KEY is unknown' : 'an API key is required: pass --key <key> or set $TOOLGATE_API_KEY';
    throw new ToolgateError(ErrorCode.UNAUTHENTICATED, message, [{ path: key ? '--key' : '$TOOLGATE_API_KEY', message: key ? 'unknown API key' : 'missing' }], { cause: error });
  }
}
