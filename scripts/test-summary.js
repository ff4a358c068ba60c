// Prints the suite's closing line, `tests: N passed, N failed`, from jest's JSON report.
const { existsSync, readFileSync } = require('node:fs');

if (!existsSync(process.argv[2])) {
  console.log(`tests: no report at ${process.argv[2]}: jest stopped before writing it (its last output above says why)`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byProject = {};
for (const file of report.testResults) {
  const project = file.name.endsWith('.e2e-spec.ts') ? 'e2e' : file.name.endsWith('.security-spec.ts') ? 'security' : file.name.endsWith('.int-spec.ts') ? 'integration' : 'unit';
  byProject[project] ??= { passed: 0, failed: 0 };
  const counts = byProject[project];
  for (const test of file.assertionResults) {
    if (test.status === 'passed') counts.passed++;
    else if (test.status === 'failed') counts.failed++;
  }
}
for (const [project, c] of Object.entries(byProject)) console.log(`  ${project}: ${c.passed} passed, ${c.failed} failed`);
const skipped = report.numPendingTests + report.numTodoTests;
if (report.numTotalTests === 0) {
  console.log('tests: 0 passed, 0 failed (no test ran)');
  process.exit(1);
}
for (const file of report.testResults)
  if (file.status === 'failed' && file.assertionResults.length === 0) console.log(`  did not run: ${file.name}: ${file.message.split('\n').find((line) => line.trim()) ?? 'no message'}`);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(report.numFailedTests > 0 || report.numRuntimeErrorTestSuites > 0 || skipped > 0 ? 1 : 0);
