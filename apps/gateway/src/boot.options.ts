/**
 * A failure while the app is built (a missing model, an unreachable database) is rethrown to the CLI,
 * which prints it as one line and exits non-zero: Nest would log the stack and exit on its own.
 * Without auto-flush the buffered boot logs go out when the app's logger is set (`flushLogs`).
 */
export const BOOT_OPTIONS = { bufferLogs: true, abortOnError: false, autoFlushLogs: false } as const;
