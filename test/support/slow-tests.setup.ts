// Integration and e2e tests start databases and server processes: allow them real time.
jest.setTimeout(90_000);
