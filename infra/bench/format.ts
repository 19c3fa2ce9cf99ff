/** Number formats and the plain-text table of the bench's printouts. */

export const int = (n: number) => Math.round(n).toLocaleString("en-US");
export const fixed = (n: number, digits = 1) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const ms = (n: number) => (n >= 100 ? int(n) : n >= 10 ? fixed(n, 1) : fixed(n, 2));
export const bytes = (n: number) =>
  Math.abs(n) >= 2 ** 20
    ? `${fixed(n / 2 ** 20, 1)} MiB`
    : Math.abs(n) >= 1024
      ? `${fixed(n / 1024, 1)} KiB`
      : `${int(n)} B`;
export const duration = (msLeft: number) =>
  msLeft >= 86_400_000
    ? `${fixed(msLeft / 86_400_000, 1)} d`
    : msLeft >= 3_600_000
      ? `${fixed(msLeft / 3_600_000, 1)} h`
      : msLeft >= 60_000
        ? `${fixed(msLeft / 60_000, 1)} min`
        : `${fixed(msLeft / 1000, 0)} s`;
export const verdict = (ok: boolean, miss = "MISS") => (ok ? "PASS" : miss);

/** Left-aligned first column, right-aligned others; two spaces between columns. */
export function table(rows: string[][], indent = "  "): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
  );
}
