import type { ImportReport } from './import.service';

/**
 * One line redrawn on a terminal (stderr) while an import runs: a bar when the source's size is
 * known (files), and the counts so far. Redrawn at most every 100 ms; `done` leaves the line.
 */
export class ProgressBar {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly where: () => { done: number; total: number } | undefined,
  ) {}

  update(report: ImportReport): void {
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    const so = this.where();
    const made = report.created;
    const counts = `${made.posts.toLocaleString('en')} posts, ${made.votes.toLocaleString('en')} votes, ${made.comments.toLocaleString('en')} comments`;
    let line = counts;
    if (so && so.total > 0) {
      const share = Math.min(1, so.done / so.total);
      const width = 30;
      const full = Math.round(share * width);
      line = `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${counts}`;
    }
    const errors = report.errors.length ? `, ${report.errors.length} rows not imported` : '';
    this.out.write(`\r${(line + errors).slice(0, (this.out.columns || 100) - 1)}\x1b[K`);
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
  }
}
