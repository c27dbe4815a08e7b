// Ends the run with one plain line, `tests: N passed, N failed, N skipped`, that tools
// reading test output understand whatever the runner, after the run's slowest files with their
// times (what a CI run that grows should be read for first). Written as the process exits, so
// that it comes after Jest's own summary.
const path = require('node:path');

const SLOWEST = 12;

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    const files = results.testResults
      .map((file) => ({ name: path.basename(file.testFilePath), seconds: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .filter((file) => Number.isFinite(file.seconds) && file.seconds > 0)
      .sort((a, b) => b.seconds - a.seconds);
    const total = files.reduce((sum, file) => sum + file.seconds, 0);
    const slowest = files.slice(0, SLOWEST).map((file) => `  ${file.seconds.toFixed(1).padStart(6)} s  ${file.name}`);
    const report = files.length === 0 ? '' :
      `slowest files (of ${files.length}, ${total.toFixed(0)} s of files in all):\n${slowest.join('\n')}\n`;
    const line = `tests: ${passed} passed, ${failed} failed, ${skipped + todo} skipped\n`;
    process.once('exit', () => process.stderr.write(report + line));
  }
}

module.exports = SummaryReporter;
