/** `@toolgate/sdk/testing`: helpers for testing a tool as the host runs it; for specs, not for plugin runtime code. */

export { type HostCallOptions, type HostLogEntry, type HostTester, type HostTesterOptions, hostTester } from './host.tester';
export { type ConformanceOptions, conformanceIssues, runTool, testContext, toolErrorOf, toolTester } from './tool.tester';
