// Ends the run with one plain line, `tests: N passed, N failed, N skipped`, that tools
// reading test output understand whatever the runner.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`);
  }
}

module.exports = SummaryReporter;
