// Ends the run with one plain line, `tests: N passed, N failed, N skipped`, that tools
// reading test output understand whatever the runner. Written as the process exits, so that
// it comes after Jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    const line = `tests: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`;
    process.once('exit', () => process.stderr.write(line));
  }
}

module.exports = SummaryReporter;
